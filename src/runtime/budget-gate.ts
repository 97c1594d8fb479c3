/**
 * The spend limit's gate (`--budget`, config agents.budgetUsd, `klaude budget`): the agent's tree
 * is checked against every limit above it (db/repos/budgets.ts) before a turn starts — the run's
 * first prompt, a message, a queued message or on-stop prompt sent on within the run — and while a
 * turn runs, each time its cost grows (agent-runtime.ts `onTurnSpend`). Reached, the turn is not
 * started or is interrupted: the run ends `failed` with the figure ("over budget"), and the person
 * is told (notify `over_budget`, once per limit reached).
 */
import { notify } from '../agent-ops/notify.js';
import type { EventOf } from '../core/events.js';
import { overBudgetText } from '../agent-ops/budget.js';
import { budgetReached, type BudgetReached } from '../db/repos/budgets.js';
import type { Deps } from './deps.js';

/** The limit reached above this agent now, or null (also when it cannot be read: logged, not enforced). */
export function budgetReachedNow(d: Deps): BudgetReached | null {
  try {
    return budgetReached(d.db, d.session.id);
  } catch (err) {
    d.log.warn('reading the spend limit failed: not enforced this time', { err });
    return null;
  }
}

/** `over_budget`, told once per limit reached. */
export function tellOverBudget(d: Deps, r: BudgetReached): void {
  notify(d, {
    kind: 'over_budget',
    sessionId: d.session.id,
    eventKey: `over_budget:${r.holderId}:${r.limitUsd}`,
    detail: overBudgetText(d.session.id, r),
  });
}

/** The limit reached above this agent, told once; null when it may go on. */
export function checkBudget(d: Deps): BudgetReached | null {
  const r = budgetReachedNow(d);
  if (r) tellOverBudget(d, r);
  return r;
}

/** The run's end when its first turn may not start. */
export function overBudgetDone(d: Deps, r: BudgetReached): Omit<EventOf<'done'>, 'ts'> {
  return { type: 'done', status: 'failed', error: overBudgetText(d.session.id, r) };
}

/**
 * One run's watch on its limits once it runs: while a turn runs (its cost grows) and before the
 * run sends more on its own (queued messages, on-stop prompts). The first limit found reached is
 * written in the log and told; the run then ends `failed`, over budget (`ending`).
 */
export class BudgetWatch {
  /** The limit this run found reached. */
  over: BudgetReached | null = null;

  constructor(
    private readonly d: Deps,
    private readonly write: (e: Omit<EventOf<'error'>, 'ts'>) => void,
  ) {}

  /** The running turn's cost grew: true when a limit is reached now (the caller interrupts the turn). */
  crossedDuringTurn(): boolean {
    if (this.over) return false;
    const r = budgetReachedNow(this.d);
    if (r) this.note(r, 'the turn is interrupted');
    return r !== null;
  }

  /** Before the run sends more itself: the limit reached (noted with `what` is not sent), or null. */
  beforeMore(what: string): BudgetReached | null {
    if (this.over) return this.over;
    const r = budgetReachedNow(this.d);
    if (r) this.note(r, `${what} not sent`);
    return r;
  }

  /**
   * A turn ended: true when the run was over budget in it, or is now that it would send more itself
   * (queued messages, on-stop prompts when `stopsPending`): what it would send is dropped.
   */
  stopsMore(queue: { length: number; takeAll(): unknown[] }, stopsPending: boolean, canContinue: boolean): boolean {
    const more = queue.length > 0 || stopsPending;
    if (!this.over && !(canContinue && more)) return false;
    if (!this.beforeMore(queue.length > 0 ? `${queue.length} queued message(s)` : 'the on-stop prompts')) return false;
    queue.takeAll();
    return true;
  }

  /** The run's end: over budget once a limit was found reached, else `done` as it is. */
  ending(done: Omit<EventOf<'done'>, 'ts'>): Omit<EventOf<'done'>, 'ts'> {
    return this.over ? { ...done, status: 'failed', error: overBudgetText(this.d.session.id, this.over) } : done;
  }

  private note(r: BudgetReached, what: string): void {
    this.over = r;
    tellOverBudget(this.d, r);
    this.write({ type: 'error', message: `${overBudgetText(this.d.session.id, r)}: ${what}` });
  }
}

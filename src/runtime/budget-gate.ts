/**
 * The spend limit's gate (`--budget`, config agents.budgetUsd, `klaude budget`): before a turn
 * starts — the run's first prompt, a message — the agent's tree is checked against every limit
 * above it (db/repos/budgets.ts). Reached, the turn is not started: the run ends `failed` with the
 * figure, and the person is told (notify `over_budget`, once per limit reached).
 */
import { notify } from '../agent-ops/notify.js';
import type { EventOf } from '../core/events.js';
import { overBudgetText } from '../agent-ops/budget.js';
import { budgetReached, type BudgetReached } from '../db/repos/budgets.js';
import type { Deps } from './deps.js';

/** The limit reached above this agent, told once; null when it may go on. */
export function checkBudget(d: Deps): BudgetReached | null {
  let r: BudgetReached | null;
  try {
    r = budgetReached(d.db, d.session.id);
  } catch (err) {
    d.log.warn('reading the spend limit failed: not enforced for this turn', { err });
    return null;
  }
  if (!r) return null;
  notify(d, {
    kind: 'over_budget',
    sessionId: d.session.id,
    eventKey: `over_budget:${r.holderId}:${r.limitUsd}`,
    detail: overBudgetText(d.session.id, r),
  });
  return r;
}

/** The run's end when its first turn may not start. */
export function overBudgetDone(d: Deps, r: BudgetReached): Omit<EventOf<'done'>, 'ts'> {
  return { type: 'done', status: 'failed', error: overBudgetText(d.session.id, r) };
}

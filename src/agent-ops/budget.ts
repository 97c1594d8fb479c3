/** Spend limits as people read them, and the refusal of a turn past one (runtime/budget-gate.ts, message). */
import { shortId } from '../core/ids.js';
import type { HasSqlite } from '../db/connection.js';
import { budgetReached, type BudgetReached } from '../db/repos/budgets.js';
import { KlaudeError } from '../lib/errors.js';
import { formatCost } from '../logs/format.js';

/** `over budget: spent $0.0123 of $0.0100; `klaude budget 7XQ2ABCD <usd>` raises it`. */
export function overBudgetText(sessionId: string, r: BudgetReached): string {
  const whose = r.holderId === sessionId ? '' : ` (${shortId(r.holderId)}'s limit, covering its sub-agents)`;
  return `over budget: spent ${formatCost(r.spentUsd)} of ${formatCost(r.limitUsd)}${whose}; \`klaude budget ${shortId(r.holderId)} <usd>\` raises it`;
}

export function overBudgetError(sessionId: string, r: BudgetReached): KlaudeError {
  return new KlaudeError('E_OVER_BUDGET', `agent ${shortId(sessionId)} is ${overBudgetText(sessionId, r)}`, {
    hint: `raise it with klaude budget ${shortId(r.holderId)} <usd>, then send the message again`,
  });
}

/** Refuses (E_OVER_BUDGET) a new turn of an agent whose tree has reached a limit above it. */
export function assertWithinBudget(db: HasSqlite, sessionId: string): void {
  const r = budgetReached(db, sessionId);
  if (r) throw overBudgetError(sessionId, r);
}

/** Why a queued agent waits (its tree is over a limit): `over budget, starts when `klaude budget 7XQ2ABCD <usd>` raises the limit`. */
export function heldText(r: BudgetReached): string {
  return `over budget, starts when \`klaude budget ${shortId(r.holderId)} <usd>\` raises the limit`;
}

/**
 * Spend limits (`klaude start --budget`, `klaude budget`): a session's `budget_usd` covers it and
 * every sub-agent under it. Raw SQL (a FastDb can read it too).
 */
import type { HasSqlite } from '../connection.js';

/** A limit that has been reached: whose it is, the limit, and what its tree has spent. */
export interface BudgetReached {
  holderId: string;
  limitUsd: number;
  spentUsd: number;
}

/**
 * The first limit reached on the way from this session up to its root (its own, then its
 * parent's…), each against the spend of the holder's whole tree; null when none is reached.
 */
export function budgetReached(db: HasSqlite, sessionId: string): BudgetReached | null {
  const holders = db.sqlite
    .prepare(
      `WITH RECURSIVE up(id, parent_id, budget_usd, depth) AS (
         SELECT id, parent_id, budget_usd, 0 FROM sessions WHERE id = ?
         UNION ALL SELECT s.id, s.parent_id, s.budget_usd, up.depth + 1 FROM sessions s JOIN up ON s.id = up.parent_id
           WHERE up.depth < 100)
       SELECT id, budget_usd AS limitUsd FROM up WHERE budget_usd IS NOT NULL ORDER BY depth`,
    )
    .all(sessionId) as { id: string; limitUsd: number }[];
  for (const h of holders) {
    const spent = treeSpend(db, h.id);
    if (spent >= h.limitUsd) return { holderId: h.id, limitUsd: h.limitUsd, spentUsd: spent };
  }
  return null;
}

/** Set (null: remove) a session's own limit. False when no such session. */
export function setBudget(db: HasSqlite, sessionId: string, usd: number | null): boolean {
  return (
    db.sqlite.prepare('UPDATE sessions SET budget_usd = ?, updated_at = ? WHERE id = ?').run(usd, Date.now(), sessionId)
      .changes > 0
  );
}

/** What a session's tree has spent (itself and every sub-agent). */
export function treeSpend(db: HasSqlite, sessionId: string): number {
  const r = db.sqlite
    .prepare(
      `WITH RECURSIVE down(id, depth) AS (
         SELECT id, 0 FROM sessions WHERE id = ?
         UNION ALL SELECT s.id, down.depth + 1 FROM sessions s JOIN down ON s.parent_id = down.id WHERE down.depth < 100)
       SELECT ifnull(sum(s.cost_usd), 0) AS spent FROM sessions s JOIN down ON s.id = down.id`,
    )
    .get(sessionId) as { spent: number };
  return r.spent;
}

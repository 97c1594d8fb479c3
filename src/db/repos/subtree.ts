/**
 * A session's subtree (itself and every sub-agent under it, through `parent_id`): what an agent's
 * klaude may act on (commands/agents/agent-scope.ts). Depth is bounded like the budget walk.
 */
import type { HasSqlite } from '../connection.js';

/** Ids of `rootId` and every session under it. */
export function subtreeIds(db: HasSqlite, rootId: string): Set<string> {
  const rows = db.sqlite
    .prepare(
      `WITH RECURSIVE down(id, depth) AS (
         SELECT id, 0 FROM sessions WHERE id = ?
         UNION ALL SELECT s.id, down.depth + 1 FROM sessions s JOIN down ON s.parent_id = down.id WHERE down.depth < 100)
       SELECT id FROM down`,
    )
    .all(rootId) as { id: string }[];
  return new Set(rows.map((r) => r.id));
}

/** Whether `id` is `rootId` or under it (walks up from `id`: cheap whatever the tree's size). */
export function isInSubtree(db: HasSqlite, rootId: string, id: string): boolean {
  const r = db.sqlite
    .prepare(
      `WITH RECURSIVE up(id, parent_id, depth) AS (
         SELECT id, parent_id, 0 FROM sessions WHERE id = ?
         UNION ALL SELECT s.id, s.parent_id, up.depth + 1 FROM sessions s JOIN up ON s.id = up.parent_id WHERE up.depth < 100)
       SELECT 1 AS hit FROM up WHERE id = ? LIMIT 1`,
    )
    .get(id, rootId) as { hit: number } | undefined;
  return r !== undefined;
}

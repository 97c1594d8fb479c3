/**
 * `[UPDATE] …` notes from children to their parent. Raw SQL, no drizzle: PostToolUse reads these on
 * every tool call, so this module works with a FastDb (see fast.ts) as well as a Db.
 */
import type { HasSqlite } from '../connection.js';
import type { UpdateRow } from '../schema.js';

export type { UpdateRow };

const COLUMNS = `id, session_id AS sessionId, parent_session_id AS parentSessionId, text, kind,
  created_at AS createdAt, acknowledged_at AS acknowledgedAt`;

/**
 * Store an update a child reported for its parent (kind 'approval'/'approval_parent': klaude's note
 * that the child waits for a permission answer). A top-level agent (no parent) stores its own with
 * itself as the parent: no Claude takes delivery of those (the queries below skip them), and
 * `klaude watch` shows them.
 */
export function addUpdate(
  db: HasSqlite,
  u: { sessionId: string; parentSessionId: string | null; text: string; kind?: 'approval' | 'approval_parent' },
): UpdateRow {
  return db.sqlite
    .prepare(
      `INSERT INTO agent_updates (session_id, parent_session_id, text, kind, created_at) VALUES (?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    )
    .get(u.sessionId, u.parentSessionId ?? u.sessionId, u.text, u.kind ?? null, Date.now()) as UpdateRow;
}

/** Unacknowledged updates for a parent from its children, oldest first. */
export function pendingUpdates(db: HasSqlite, parentId: string): UpdateRow[] {
  return db.sqlite
    .prepare(
      `SELECT ${COLUMNS} FROM agent_updates
       WHERE parent_session_id = ? AND session_id <> parent_session_id AND acknowledged_at IS NULL ORDER BY id`,
    )
    .all(parentId) as UpdateRow[];
}

/** Unacknowledged updates these sessions reported (to whoever), with id > `afterId`, oldest first. */
export function pendingUpdatesFrom(db: HasSqlite, sessionIds: readonly string[], afterId = 0): UpdateRow[] {
  if (sessionIds.length === 0) return [];
  return db.sqlite
    .prepare(
      `SELECT ${COLUMNS} FROM agent_updates
       WHERE session_id IN (${sessionIds.map(() => '?').join(',')}) AND acknowledged_at IS NULL AND id > ? ORDER BY id`,
    )
    .all(...sessionIds, afterId) as UpdateRow[];
}

/**
 * Atomically claim a parent's pending updates: acknowledge them and return them, oldest first, in
 * one UPDATE … RETURNING, so two concurrent hooks never both inject the same update.
 */
export function takePendingUpdates(db: HasSqlite, parentId: string): UpdateRow[] {
  const rows = db.sqlite
    .prepare(
      `UPDATE agent_updates SET acknowledged_at = ?
       WHERE parent_session_id = ? AND acknowledged_at IS NULL AND session_id <> parent_session_id RETURNING ${COLUMNS}`,
    )
    .all(Date.now(), parentId) as UpdateRow[];
  return rows.sort((a, b) => a.id - b.id);
}

/**
 * Acknowledge updates by id; returns how many changed. Already-acknowledged ids are skipped, so of
 * two concurrent readers only one sees a non-zero count for the same update.
 */
export function ackUpdates(db: HasSqlite, ids: readonly number[]): number {
  if (ids.length === 0) return 0;
  const now = Date.now();
  let changed = 0;
  // SQLite allows 32766 bound parameters by default; stay far below it.
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    changed += db.sqlite
      .prepare(
        `UPDATE agent_updates SET acknowledged_at = ? WHERE acknowledged_at IS NULL AND id IN (${chunk.map(() => '?').join(',')})`,
      )
      .run(now, ...chunk).changes;
  }
  return changed;
}

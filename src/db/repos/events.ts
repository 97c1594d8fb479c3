/**
 * The audit trail (`klaude sessions -v`, debugging). Raw SQL, no drizzle, so hooks can log with a
 * FastDb (see fast.ts). `payload` is stored as JSON text, like drizzle's json mode.
 */
import type { HasSqlite } from '../connection.js';
import type { EventRow } from '../schema.js';

export type { EventRow };

export interface NewEvent {
  projectId?: string | null;
  klaudeSessionId?: string | null;
  /** e.g. 'hook.session_start', 'switch', 'agent.done'. */
  kind: string;
  payload?: unknown;
}

/** Append an event; returns its id (ids grow monotonically: use them as a cursor). */
export function addEvent(db: HasSqlite, e: NewEvent): number {
  const info = db.sqlite
    .prepare('INSERT INTO events (project_id, klaude_session_id, kind, payload, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(
      e.projectId ?? null,
      e.klaudeSessionId ?? null,
      e.kind,
      e.payload === undefined || e.payload === null ? null : JSON.stringify(e.payload),
      Date.now(),
    );
  return Number(info.lastInsertRowid);
}

/** A session's events after `afterId` (exclusive), oldest first, at most `limit` (1000). */
export function sessionEvents(
  db: HasSqlite,
  sessionId: string,
  o: { afterId?: number; limit?: number } = {},
): EventRow[] {
  const rows = db.sqlite
    .prepare(
      `SELECT id, project_id AS projectId, klaude_session_id AS klaudeSessionId, kind, payload, created_at AS createdAt
       FROM events WHERE klaude_session_id = ? AND id > ? ORDER BY id LIMIT ?`,
    )
    .all(sessionId, o.afterId ?? 0, o.limit ?? 1000) as (Omit<EventRow, 'payload'> & { payload: string | null })[];
  return rows.map((r) => ({ ...r, payload: r.payload === null ? null : (JSON.parse(r.payload) as unknown) }));
}

/** Whether the session's SessionStart hook has been recorded at or after `since` (ms). */
export function sessionStartSince(db: HasSqlite, sessionId: string, since: number): boolean {
  const row = db.sqlite
    .prepare(
      "SELECT 1 FROM events WHERE klaude_session_id = ? AND kind = 'hook.SessionStart' AND created_at >= ? LIMIT 1",
    )
    .get(sessionId, since);
  return row !== undefined;
}

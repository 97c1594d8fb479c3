/**
 * The record of events told outside the terminal (config notify.*): one row per event, keyed by
 * what the event is (`needs_you:approval:<id>`, `done:<session>:<run>`). The unique key makes
 * "tell it once" one INSERT: whichever klaude process records the event first gets the row and
 * tells; any other process that sees the same event finds it taken.
 */
import type { HasSqlite } from '../connection.js';
import type { NotifyKind } from '../../core/notify-event.js';

/** True when this caller is the first to claim the event (and so the one to tell it). */
export function claimNotification(
  db: HasSqlite,
  e: { sessionId: string; kind: NotifyKind; eventKey: string },
): boolean {
  const r = db.sqlite
    .prepare('INSERT OR IGNORE INTO notifications (session_id, kind, event_key, created_at) VALUES (?, ?, ?, ?)')
    .run(e.sessionId, e.kind, e.eventKey, Date.now());
  return r.changes > 0;
}

/** What a notification names: the session's type, titles and its project's root. */
export interface NotifySubject {
  type: string;
  name: string | null;
  title: string | null;
  prompt: string | null;
  projectRoot: string;
}

export function notifySubject(db: HasSqlite, sessionId: string): NotifySubject | undefined {
  return db.sqlite
    .prepare(
      `SELECT s.type, s.name, substr(s.title, 1, 200) AS title, substr(s.prompt, 1, 200) AS prompt, p.root_path AS projectRoot
       FROM sessions s JOIN projects p ON p.id = s.project_id WHERE s.id = ?`,
    )
    .get(sessionId) as NotifySubject | undefined;
}

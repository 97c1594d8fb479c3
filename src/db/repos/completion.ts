/**
 * The sessions a shell may complete an id to (`klaude __complete`, run on every Tab): one indexed
 * query, raw SQL so it runs on a FastDb without loading drizzle. What `klaude sessions` shows by
 * default: not archived, and not ended over a week ago. The project is found by its root (a unique
 * index), which spares hashing the path on every Tab. Read only, no reconcile: a status may be a
 * dead process's last word until the next listing settles it (it is only a description here).
 */
import type { HasSqlite } from '../connection.js';

export interface SessionToComplete {
  id: string;
  status: string;
  type: string;
  /** What listings show: the person's title, else the session's, else its first prompt (cut). */
  shown: string;
}

/** `any`: every listed session; `waiting`: with a permission request unanswered; `active`: mid-turn or queued. */
export type SessionPick = 'any' | 'waiting' | 'active';

const WHERE: Record<SessionPick, string> = {
  any: '',
  waiting: 'AND EXISTS (SELECT 1 FROM approvals a WHERE a.session_id = s.id AND a.answer IS NULL)',
  active: "AND s.status IN ('running', 'waiting', 'queued', 'pending')",
};

export function sessionsToComplete(
  db: HasSqlite,
  o: { projectRoot: string; pick: SessionPick; endedSince: number; limit?: number },
): SessionToComplete[] {
  return db.sqlite
    .prepare(
      `SELECT s.id, s.status, s.type, substr(COALESCE(NULLIF(s.name, ''), NULLIF(s.title, ''), s.prompt, ''), 1, 200) AS shown
       FROM projects p JOIN sessions s ON s.project_id = p.id
       WHERE p.root_path = ? AND s.archived_at IS NULL
         AND (s.status NOT IN ('done', 'failed', 'interrupted', 'cancelled') OR COALESCE(s.ended_at, s.updated_at) >= ?)
         ${WHERE[o.pick]}
       ORDER BY s.created_at DESC, s.id DESC LIMIT ?`,
    )
    .all(o.projectRoot, o.endedSince, o.limit ?? 200) as SessionToComplete[];
}

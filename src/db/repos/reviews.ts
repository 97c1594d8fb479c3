/**
 * Reviews (`klaude review`): one row per reviewer session, with the findings read from its final
 * answer. Raw SQL, so the listings that open the DB without drizzle (`klaude sessions`, the
 * dashboard's and the web server's feeds) read them too.
 */
import type { ReviewFinding, ReviewSubject } from '../../core/findings.js';
import type { SessionStatus } from '../../core/status.js';
import type { HasSqlite } from '../connection.js';
import type { Runtime } from '../schema.js';

/** A review as listings show it: the reviewer session's own columns and what it found. */
export interface ReviewView {
  /** The reviewer session. */
  sessionId: string;
  /** The session it reviews. */
  originId: string;
  type: string;
  runtime: Runtime;
  status: SessionStatus;
  subject: ReviewSubject;
  focus: string | null;
  summary: string | null;
  /** Null until a run of the reviewer ended with findings read. */
  findings: ReviewFinding[] | null;
  /** Why none were read: the run failed, or the answer held none in a shape klaude reads. */
  error: string | null;
  sentAt: number | null;
  createdAt: number;
  archivedAt: number | null;
}

export function createReview(
  db: HasSqlite,
  r: { sessionId: string; subject: ReviewSubject; focus: string | null },
): void {
  const now = Date.now();
  db.sqlite
    .prepare('INSERT INTO reviews (session_id, subject, focus, created_at, updated_at) VALUES (?, ?, ?, ?, ?)')
    .run(r.sessionId, r.subject, r.focus, now, now);
}

/** What a run of the reviewer ended with: findings read (error cleared), or why there are none. */
export function recordReviewResult(
  db: HasSqlite,
  sessionId: string,
  r: { summary: string | null; findings: ReviewFinding[] } | { error: string },
): void {
  const now = Date.now();
  if ('error' in r) {
    db.sqlite.prepare('UPDATE reviews SET error = ?, updated_at = ? WHERE session_id = ?').run(r.error, now, sessionId);
    return;
  }
  db.sqlite
    .prepare('UPDATE reviews SET summary = ?, findings = ?, error = NULL, updated_at = ? WHERE session_id = ?')
    .run(r.summary, JSON.stringify(r.findings), now, sessionId);
}

/**
 * The findings of these reviews went to their origin: stamped, and the reviewer rows' updated_at
 * bumped so the listings' change probes (count and newest updated_at of a project) see it.
 */
export function markReviewsSent(db: HasSqlite, sessionIds: readonly string[], at = Date.now()): void {
  const mark = db.sqlite.prepare('UPDATE reviews SET sent_at = ?, updated_at = ? WHERE session_id = ?');
  const bump = db.sqlite.prepare('UPDATE sessions SET updated_at = ? WHERE id = ?');
  db.sqlite.transaction(() => {
    for (const id of sessionIds) {
      mark.run(at, at, id);
      bump.run(at, id);
    }
  })();
}

const VIEW_SQL = `SELECT s.id AS sessionId, s.review_of AS originId, s.type, s.runtime, s.status, r.subject, r.focus,
  r.summary, r.findings, r.error, r.sent_at AS sentAt, s.created_at AS createdAt, s.archived_at AS archivedAt
FROM sessions s JOIN reviews r ON r.session_id = s.id`;

function toView(row: Record<string, unknown>): ReviewView {
  let findings: ReviewFinding[] | null = null;
  if (typeof row.findings === 'string') {
    try {
      findings = JSON.parse(row.findings) as ReviewFinding[];
    } catch {
      findings = null; // written by us as JSON: unreadable only if the file was damaged
    }
  }
  return { ...row, findings } as ReviewView;
}

/** The review a reviewer session is, or undefined for any other session. */
export function reviewById(db: HasSqlite, sessionId: string): ReviewView | undefined {
  const r = db.sqlite.prepare(`${VIEW_SQL} WHERE s.id = ?`).get(sessionId) as Record<string, unknown> | undefined;
  return r ? toView(r) : undefined;
}

/** The reviews of one session, oldest first. */
export function reviewsOf(db: HasSqlite, originId: string): ReviewView[] {
  return (
    db.sqlite.prepare(`${VIEW_SQL} WHERE s.review_of = ? ORDER BY s.created_at, s.id`).all(originId) as Record<
      string,
      unknown
    >[]
  ).map(toView);
}

/** Every review of a project's sessions, by origin, oldest first (listings; archived reviewers included). */
export function reviewsOfProject(db: HasSqlite, projectId: string): Map<string, ReviewView[]> {
  const rows = db.sqlite
    .prepare(`${VIEW_SQL} WHERE s.project_id = ? AND s.review_of IS NOT NULL ORDER BY s.created_at, s.id`)
    .all(projectId) as Record<string, unknown>[];
  const out = new Map<string, ReviewView[]>();
  for (const row of rows) {
    const v = toView(row);
    const list = out.get(v.originId);
    if (list) list.push(v);
    else out.set(v.originId, [v]);
  }
  return out;
}

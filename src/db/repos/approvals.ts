/**
 * Pending permission requests of headless agents (table `approvals`). Raw SQL on HasSqlite, so the
 * listing commands, the runtime and the dashboard use it alike. A row is pending while `answer` is
 * null; answering is one conditional UPDATE, so of two people answering at once exactly one wins.
 */
import type { HasSqlite } from '../connection.js';
import type { ApprovalAnswer, ApprovalRow } from '../schema.js';

export type { ApprovalAnswer, ApprovalRow };

const COLUMNS = `id, session_id AS sessionId, request_id AS requestId, tool_name AS toolName, summary, input,
  suggestions, suggested_rule AS suggestedRule, reason, created_at AS createdAt, answer,
  answer_message AS answerMessage, answered_by AS answeredBy, answered_at AS answeredAt`;

type Raw = Omit<ApprovalRow, 'input' | 'suggestions'> & { input: string | null; suggestions: string | null };

const parse = (s: string | null): unknown => {
  if (s === null) return null;
  try {
    return JSON.parse(s) as unknown;
  } catch {
    return null;
  }
};
const row = (r: Raw): ApprovalRow => ({ ...r, input: parse(r.input), suggestions: parse(r.suggestions) });

export interface NewApproval {
  sessionId: string;
  requestId: string;
  toolName: string;
  summary: string;
  input?: unknown;
  suggestions?: unknown;
  suggestedRule?: string | null;
  reason?: string | null;
}

export function addApproval(db: HasSqlite, a: NewApproval): ApprovalRow {
  const r = db.sqlite
    .prepare(
      `INSERT INTO approvals (session_id, request_id, tool_name, summary, input, suggestions, suggested_rule, reason, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${COLUMNS}`,
    )
    .get(
      a.sessionId,
      a.requestId,
      a.toolName,
      a.summary,
      a.input === undefined ? null : JSON.stringify(a.input),
      a.suggestions === undefined ? null : JSON.stringify(a.suggestions),
      a.suggestedRule ?? null,
      a.reason ?? null,
      Date.now(),
    ) as Raw;
  return row(r);
}

/** Whether the session has an unanswered request (one indexed lookup; the PostToolUse hook asks). */
export function hasPendingApproval(db: HasSqlite, sessionId: string): boolean {
  return (
    db.sqlite.prepare('SELECT 1 FROM approvals WHERE session_id = ? AND answer IS NULL LIMIT 1').get(sessionId) !==
    undefined
  );
}

/** A session's unanswered requests, oldest first. */
export function pendingApprovals(db: HasSqlite, sessionId: string): ApprovalRow[] {
  return (
    db.sqlite
      .prepare(`SELECT ${COLUMNS} FROM approvals WHERE session_id = ? AND answer IS NULL ORDER BY id`)
      .all(sessionId) as Raw[]
  ).map(row);
}

/** Unanswered requests of many sessions (one query), oldest first; for listings. */
export function pendingApprovalsOf(db: HasSqlite, sessionIds: readonly string[]): Map<string, ApprovalRow[]> {
  const out = new Map<string, ApprovalRow[]>();
  if (sessionIds.length === 0) return out;
  const wanted = new Set(sessionIds);
  const rows = (
    db.sqlite.prepare(`SELECT ${COLUMNS} FROM approvals WHERE answer IS NULL ORDER BY id`).all() as Raw[]
  ).map(row);
  for (const r of rows) {
    if (!wanted.has(r.sessionId)) continue;
    const list = out.get(r.sessionId) ?? [];
    list.push(r);
    out.set(r.sessionId, list);
  }
  return out;
}

/**
 * A project's unanswered requests of sessions still `waiting` on them, oldest first (`klaude
 * status`, the dashboard, the supervisor's notices). A row left pending by a runtime that died is
 * not listed once its session has been reaped.
 */
export function projectPendingApprovals(db: HasSqlite, projectId: string): ApprovalRow[] {
  const cols = COLUMNS.replace(/(^|,\s*)(\w+)/g, '$1a.$2');
  return (
    db.sqlite
      .prepare(
        `SELECT ${cols} FROM approvals a JOIN sessions s ON s.id = a.session_id
         WHERE s.project_id = ? AND s.status = 'waiting' AND a.answer IS NULL ORDER BY a.id`,
      )
      .all(projectId) as Raw[]
  ).map(row);
}

export function getApproval(db: HasSqlite, id: number): ApprovalRow | undefined {
  const r = db.sqlite.prepare(`SELECT ${COLUMNS} FROM approvals WHERE id = ?`).get(id) as Raw | undefined;
  return r ? row(r) : undefined;
}

/** All requests of a session, oldest first (answered ones too). */
export function approvalsOf(db: HasSqlite, sessionId: string): ApprovalRow[] {
  return (
    db.sqlite.prepare(`SELECT ${COLUMNS} FROM approvals WHERE session_id = ? ORDER BY id`).all(sessionId) as Raw[]
  ).map(row);
}

/** Record the answer if the request is still pending; false when someone answered first. */
export function answerApproval(
  db: HasSqlite,
  id: number,
  a: { answer: ApprovalAnswer; message?: string | null; by: string },
): boolean {
  return (
    db.sqlite
      .prepare(
        'UPDATE approvals SET answer = ?, answer_message = ?, answered_by = ?, answered_at = ? WHERE id = ? AND answer IS NULL',
      )
      .run(a.answer, a.message ?? null, a.by, Date.now(), id).changes === 1
  );
}

/** Close every pending request of a session (its run ended, its runtime died): returns how many. */
export function cancelPendingApprovals(db: HasSqlite, sessionId: string, message: string): number {
  return db.sqlite
    .prepare(
      "UPDATE approvals SET answer = 'cancelled', answer_message = ?, answered_by = 'runtime', answered_at = ? WHERE session_id = ? AND answer IS NULL",
    )
    .run(message, Date.now(), sessionId).changes;
}

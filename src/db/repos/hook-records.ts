/**
 * The few session and link writes a hook makes, in raw SQL over a drizzle-free connection
 * (db/fast.ts): loading drizzle would cost the hook more than all of its work
 * (docs/ARCHITECTURE.md, Performance budget, bench/hook.mjs). Semantics mirror db/repos/links.ts and
 * db/repos/sessions.ts; test/integration/hook.test.ts checks the resulting rows.
 */
import type { HasSqlite } from '../connection.js';
import type { SessionStatus } from '../../core/status.js';

export interface HookSession {
  id: string;
  projectId: string;
  type: string;
  status: SessionStatus;
  title: string | null;
  prompt: string | null;
  activity: string | null;
  /** When the current (or last) turn began. */
  runStartedAt: number | null;
  /** How far along it is (JSON of core/progress.ts ProgressRecord), as stored. */
  progress?: string | null;
}

export function readSession(db: HasSqlite, id: string): HookSession | undefined {
  return db.sqlite
    .prepare(
      'SELECT id, project_id AS projectId, type, status, title, prompt, activity, run_started_at AS runStartedAt, progress FROM sessions WHERE id = ?',
    )
    .get(id) as HookSession | undefined;
}

export interface HookPatch {
  status?: SessionStatus;
  title?: string;
  prompt?: string;
  lastText?: string;
  /** What an interactive session does now (null clears it: between turns). */
  activity?: string | null;
  /** Why the session's last interactive turn failed (StopFailure); null clears it. */
  error?: string | null;
  runStartedAt?: number;
  tokensIn?: number;
  tokensOut?: number;
  /** JSON of a ProgressRecord (an interactive claude's todo list). */
  progress?: string;
}

const COLUMN: Record<keyof HookPatch, string> = {
  status: 'status',
  title: 'title',
  prompt: 'prompt',
  lastText: 'last_text',
  activity: 'activity',
  error: 'error',
  runStartedAt: 'run_started_at',
  tokensIn: 'tokens_in',
  tokensOut: 'tokens_out',
  progress: 'progress',
};

/** The transcripts of every Claude session the klaude session has run (for usage sums). */
export function linkedTranscripts(db: HasSqlite, klaudeSessionId: string): string[] {
  return db.sqlite
    .prepare(
      'SELECT transcript_path FROM claude_session_links WHERE klaude_session_id = ? AND transcript_path IS NOT NULL',
    )
    .pluck()
    .all(klaudeSessionId) as string[];
}

export function patchSession(db: HasSqlite, id: string, patch: HookPatch, now: number): void {
  const keys = (Object.keys(patch) as (keyof HookPatch)[]).filter((k) => patch[k] !== undefined);
  if (keys.length === 0) return;
  const set = keys.map((k) => `${COLUMN[k]} = ?`).join(', ');
  db.sqlite
    .prepare(`UPDATE sessions SET ${set}, updated_at = ? WHERE id = ?`)
    .run(...keys.map((k) => patch[k] ?? null), now, id);
}

/**
 * Klaude session K now runs Claude session C (as linkClaudeSession): upsert the link by
 * Claude id (a repeat reopens it; an id owned by another session keeps its owner), close
 * K's other open links as 'superseded', and make C the session's current native id.
 */
export function linkClaude(
  db: HasSqlite,
  l: { klaudeSessionId: string; claudeSessionId: string; transcriptPath: string | null; source: string },
  now: number,
): void {
  db.sqlite
    .prepare(
      `INSERT INTO claude_session_links (klaude_session_id, claude_session_id, transcript_path, source, started_at)
       VALUES (@k, @c, @t, @source, @now)
       ON CONFLICT (claude_session_id) DO UPDATE SET
         source = @source,
         transcript_path = coalesce(@t, transcript_path),
         started_at = CASE WHEN ended_at IS NULL THEN started_at ELSE @now END,
         ended_at = NULL,
         end_reason = NULL`,
    )
    .run({ k: l.klaudeSessionId, c: l.claudeSessionId, t: l.transcriptPath, source: l.source, now });
  db.sqlite
    .prepare(
      `UPDATE claude_session_links SET ended_at = ?, end_reason = 'superseded'
       WHERE klaude_session_id = ? AND claude_session_id <> ? AND ended_at IS NULL`,
    )
    .run(now, l.klaudeSessionId, l.claudeSessionId);
  db.sqlite
    .prepare(
      'UPDATE sessions SET native_session_id = ?, transcript_path = coalesce(?, transcript_path), updated_at = ? WHERE id = ?',
    )
    .run(l.claudeSessionId, l.transcriptPath, now, l.klaudeSessionId);
}

/** Close a link (SessionEnd); the first end time and reason win. */
export function endLink(db: HasSqlite, claudeSessionId: string, reason: string | null, now: number): void {
  db.sqlite
    .prepare(
      `UPDATE claude_session_links SET ended_at = coalesce(ended_at, ?), end_reason = coalesce(end_reason, ?)
       WHERE claude_session_id = ?`,
    )
    .run(now, reason, claudeSessionId);
}

/** The klaude session a Claude session id is linked to, if any. */
export function linkOwner(db: HasSqlite, claudeSessionId: string): string | undefined {
  const row = db.sqlite
    .prepare('SELECT klaude_session_id AS id FROM claude_session_links WHERE claude_session_id = ?')
    .get(claudeSessionId) as { id: string } | undefined;
  return row?.id;
}

/** How far back a late PreToolUse looks for its tool's PostToolUse (parallel calls interleave). */
const RECENT_EVENTS = 50;

/** Whether this tool call's end (PostToolUse or PostToolUseFailure) is among the session's recent events. */
export function toolFinished(db: HasSqlite, klaudeSessionId: string, toolUseId: string | undefined): boolean {
  if (!toolUseId) return false;
  const row = db.sqlite
    .prepare(
      `SELECT 1 FROM (SELECT kind, payload FROM events WHERE klaude_session_id = ? ORDER BY id DESC LIMIT ${RECENT_EVENTS})
       WHERE kind IN ('hook.PostToolUse', 'hook.PostToolUseFailure') AND json_extract(payload, '$.toolUseId') = ?`,
    )
    .get(klaudeSessionId, toolUseId);
  return row !== undefined;
}

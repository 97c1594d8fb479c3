/**
 * A session row read with plain SQL, in drizzle's shape (SessionRow), for the commands that open
 * the DB without drizzle (db/fast.ts): `logs`, id resolution. Loading drizzle costs a command
 * about 15 ms before its first query; these reads need none of it.
 * test/integration/db-resolve.test.ts holds this mapping to drizzle's own select, column by column.
 */
import type { HasSqlite } from '../connection.js';
import type { SessionRow } from '../schema.js';

/** Every column of `sessions`, aliased to SessionRow's keys. */
export const SESSION_COLUMNS = `id, project_id AS projectId, parent_id AS parentId, instance_id AS instanceId, type, runtime,
  status, title, prompt, model, native_session_id AS nativeSessionId, transcript_path AS transcriptPath,
  log_path AS logPath, last_text AS lastText, cost_usd AS costUsd, tokens_in AS tokensIn, tokens_out AS tokensOut,
  metadata, worktree_path AS worktreePath, worktree_branch AS worktreeBranch, worktree_base AS worktreeBase,
  archived_at AS archivedAt, created_at AS createdAt, updated_at AS updatedAt, ended_at AS endedAt, activity,
  run_started_at AS runStartedAt, error, queued_at AS queuedAt, name, pinned_at AS pinnedAt, budget_usd AS budgetUsd,
  forked_from AS forkedFrom, review_of AS reviewOf, priority, queue_order AS queueOrder, progress`;

/** A row selected with SESSION_COLUMNS as drizzle returns it (`metadata` and `progress` are JSON text in the table). */
export function sessionFromSql(r: Record<string, unknown>): SessionRow {
  const json = (v: unknown): unknown => (typeof v === 'string' ? JSON.parse(v) : null);
  return { ...r, metadata: json(r.metadata), progress: json(r.progress) } as SessionRow;
}

export function sessionById(db: HasSqlite, id: string): SessionRow | undefined {
  const r = db.sqlite.prepare(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ?`).get(id) as
    Record<string, unknown> | undefined;
  return r ? sessionFromSql(r) : undefined;
}

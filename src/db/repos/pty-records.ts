/**
 * The PTY server's records in raw SQL, without drizzle (like events.ts: usable with a FastDb), so
 * the long-lived server loads neither drizzle nor the config parser (ptyd/server.ts). Each function
 * mirrors its drizzle twin for the columns it touches: currentRows ≈ processes.ts
 * currentProcesses, recordCurrentRow ≈ recordProcess, endRow ≈ endProcess, claimOf ≈ claims.ts
 * getClaim, setRunState ≈ sessions.ts updateSession({status, endedAt}).
 */
import type { HasSqlite } from '../connection.js';

export interface OpenRow {
  id: number;
  kind: string;
  pid: number;
  pidStart: number | null;
}

/** Run `fn` in a write transaction taken up front (BEGIN IMMEDIATE), like client.ts tx. */
export function writeTx<T>(db: HasSqlite, fn: () => T): T {
  return db.sqlite.transaction(fn).immediate();
}

/** The session's current, not-yet-exited process rows, newest first. */
export function currentRows(db: HasSqlite, sessionId: string): OpenRow[] {
  return db.sqlite
    .prepare(
      `SELECT id, kind, pid, pid_start AS pidStart FROM runtime_process
       WHERE klaude_session_id = ? AND is_current = 1 AND exited_at IS NULL ORDER BY id DESC`,
    )
    .all(sessionId) as OpenRow[];
}

/** A new current row of `kind` for the session (the previous current one of that kind stops being current). */
export function recordCurrentRow(
  db: HasSqlite,
  r: { sessionId: string; kind: string; pid: number; pidStart: number | null },
): number {
  return writeTx(db, () => {
    const id = Number(
      db.sqlite
        .prepare(
          `INSERT INTO runtime_process (klaude_session_id, instance_id, pid, pid_start, parent_process_id, kind, is_current, started_at)
           VALUES (?, NULL, ?, ?, NULL, ?, 1, ?)`,
        )
        .run(r.sessionId, r.pid, r.pidStart, r.kind, Date.now()).lastInsertRowid,
    );
    db.sqlite
      .prepare(
        'UPDATE runtime_process SET is_current = 0 WHERE klaude_session_id = ? AND kind = ? AND is_current = 1 AND id != ?',
      )
      .run(r.sessionId, r.kind, id);
    return id;
  });
}

/** The process of row `id` ended (kept as it is when already ended). */
export function endRow(db: HasSqlite, id: number, e: { exitCode?: number | null; signal?: string | null } = {}): void {
  db.sqlite
    .prepare(
      'UPDATE runtime_process SET exited_at = ?, exit_code = ?, signal = ?, is_current = 0 WHERE id = ? AND exited_at IS NULL',
    )
    .run(Date.now(), e.exitCode ?? null, e.signal ?? null, id);
}

export interface ClaimOf {
  holder: string;
  holderPid: number;
  holderStart: number | null;
}

export function claimOf(db: HasSqlite, sessionId: string): ClaimOf | undefined {
  return db.sqlite
    .prepare(
      'SELECT holder, holder_pid AS holderPid, holder_start AS holderStart FROM session_claims WHERE klaude_session_id = ?',
    )
    .get(sessionId) as ClaimOf | undefined;
}

export interface RunState {
  status: string;
  endedAt: number | null;
}

export function runStateOf(db: HasSqlite, sessionId: string): RunState | undefined {
  return db.sqlite.prepare('SELECT status, ended_at AS endedAt FROM sessions WHERE id = ?').get(sessionId) as
    RunState | undefined;
}

/** An interactive session started ('idle', not ended), ended ('done' at `endedAt`), or put back as it was. */
export function setRunState(db: HasSqlite, sessionId: string, status: string, endedAt: number | null): void {
  db.sqlite
    .prepare('UPDATE sessions SET status = ?, ended_at = ?, updated_at = ? WHERE id = ?')
    .run(status, endedAt, Date.now(), sessionId);
}

/**
 * What the person-check (ownership/answerer.ts) reads of the DB, in raw SQL so it also runs on a
 * drizzle-free connection (the web server's, db/fast.ts): the open process rows of what klaude
 * launched that runs or hosts an agent's CLI, and the running instances (dashboards).
 */
import type { HasSqlite } from '../connection.js';

export interface AgentRootRow {
  pid: number;
  pidStart: number | null;
  kind: 'claude' | 'cli' | 'runtime' | 'pty';
}

/** Open rows of processes that run claude (or another agent CLI), or host it. */
export function openAgentRootRows(db: HasSqlite): AgentRootRow[] {
  return db.sqlite
    .prepare(
      `SELECT pid, pid_start AS pidStart, kind FROM runtime_process
       WHERE exited_at IS NULL AND kind IN ('claude', 'cli', 'runtime', 'pty')`,
    )
    .all() as AgentRootRow[];
}

/** Running klaude instances (supervisors, `klaude ui`): id and pid. */
export function runningInstances(db: HasSqlite): { id: string; pid: number }[] {
  return db.sqlite.prepare(`SELECT id, pid FROM instances WHERE status = 'running'`).all() as {
    id: string;
    pid: number;
  }[];
}

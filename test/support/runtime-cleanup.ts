// No agent process may outlive a test. Runtimes lead their own process group (their CLI and its
// children are in it); a CLI row left without its runtime is killed on its own.
import Database from 'better-sqlite3';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Readable {
  prepare(sql: string): { all(): unknown[] };
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    /* gone */
  }
}

/**
 * SIGKILL every process the DB still records as live: runtimes with their groups and what is left
 * in their sessions (a CLI's helpers in groups of their own, which the runtime or its watchdog
 * would end, had the cleanup not killed them first), stray CLIs.
 */
export function killRuntimeGroups(db: Readable): void {
  const rows = db
    .prepare("SELECT pid, kind FROM runtime_process WHERE exited_at IS NULL AND kind IN ('runtime', 'cli')")
    .all() as { pid: number; kind: string }[];
  for (const r of rows) kill(r.kind === 'runtime' ? -r.pid : r.pid);
  // (A row some test made up for pid 1, or for this process, names no runtime's session.)
  const own = sessionOf('self');
  const sessions = new Set(rows.filter((r) => r.kind === 'runtime' && r.pid > 1 && r.pid !== own).map((r) => r.pid));
  if (sessions.size > 0) killSessionMembers(sessions);
}

/** SIGKILL every process (but this one) whose session (/proc stat field 6) is one of `sessions`. */
function killSessionMembers(sessions: ReadonlySet<number>): void {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return;
  }
  for (const d of pids) {
    const sid = sessionOf(d);
    if (Number(d) !== process.pid && sid !== null && sessions.has(sid)) kill(Number(d));
  }
}

function sessionOf(pid: string): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
  } catch {
    return null; // gone, or no /proc
  }
}

/** The same, for a KLAUDE_HOME whose DB the test does not hold open (nothing if there is none). */
export function killLeftRuntimes(klaudeHome: string): void {
  const file = join(klaudeHome, 'sessions.db');
  if (!existsSync(file)) return;
  const db = new Database(file, { readonly: true });
  try {
    killRuntimeGroups(db);
  } finally {
    db.close();
  }
}

/**
 * SIGKILL every process (but this one and its parent) whose environment names `klaudeHome`: what
 * a test started and the DB may not know of (a runtime recorded in a DB the test deleted, a hook
 * still running). Linux only (/proc); elsewhere nothing.
 */
export function killProcessesOfHome(klaudeHome: string): void {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return;
  }
  const mark = `KLAUDE_HOME=${klaudeHome}`;
  for (const d of pids) {
    const pid = Number(d);
    if (pid === process.pid || pid === process.ppid) continue;
    try {
      if (readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').includes(mark)) kill(pid);
    } catch {
      /* gone, or not ours to read */
    }
  }
}

/** Process helpers for pids we don't own as ChildProcess objects (other supervisors, runtimes). */
import { readFileSync } from 'node:fs';

export function isAlive(pid: number | null | undefined): boolean {
  if (!pid || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function signalSafe(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/** Signal a whole process group (runtimes run detached as group leaders); falls back to the pid. */
export function signalGroup(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return signalSafe(pid, signal);
  }
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * Wait until a foreign pid is gone. There is no exit notification for processes that
 * aren't our children, so this polls with a short, bounded interval.
 */
export async function waitForPidExit(pid: number, timeoutMs: number, intervalMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!isAlive(pid)) return true;
    await sleep(intervalMs);
  }
  return !isAlive(pid);
}

/** SIGTERM, wait `graceMs`, SIGKILL if still alive; resolves true once the pid is gone. */
export async function terminatePid(pid: number, graceMs: number, opts: { group?: boolean } = {}): Promise<boolean> {
  const send = opts.group ? signalGroup : signalSafe;
  if (!isAlive(pid)) return true;
  send(pid, 'SIGTERM');
  if (await waitForPidExit(pid, graceMs)) return true;
  send(pid, 'SIGKILL');
  return waitForPidExit(pid, 2000);
}

/**
 * When the process started, as /proc/<pid>/stat field 22 (clock ticks since boot): with the pid
 * it names one process for good, so a pid reused after a crash is never mistaken for ours. Null
 * where there is no /proc (macOS) or the pid is gone; callers then fall back to the pid alone.
 */
export function processStartTime(pid: number): number | null {
  return statField(pid, 22);
}

/** The process group of `pid` (/proc stat field 5); null where unknown. */
export function processGroupId(pid: number): number | null {
  return statField(pid, 5);
}

function statField(pid: number, field: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const v = Number(rest[field - 3]); // rest[0] is field 3 (state)
  return Number.isFinite(v) ? v : null;
}

/** The pid is alive and (when known) still the process that started at `start`. */
export function isSameProcess(pid: number | null | undefined, start: number | null | undefined): boolean {
  if (!isAlive(pid)) return false;
  if (start === null || start === undefined) return true;
  const now = processStartTime(pid!);
  return now === null || now === start;
}

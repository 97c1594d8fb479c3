/** Process helpers for pids we don't own as ChildProcess objects (other supervisors, runtimes). */

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

/**
 * Process helpers for pids we don't own as ChildProcess objects (other supervisors, runtimes).
 *
 * A pid alone does not name a process: after a crash the pid may be reused by anything. A pid with
 * its start time does, so every liveness judgement and every signal to a recorded process goes
 * through `identities` (pid + recorded start). Where the start time cannot be known, the pid alone
 * decides "alive" but never earns a SIGKILL.
 */
import type * as ChildProcess from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * node:child_process, loaded when `ps` is first run (only where /proc is missing): loading it
 * costs every command that checks a pid (`sessions`, the hook) about 2 % of its start-up.
 */
function childProcess(): typeof ChildProcess {
  return createRequire(import.meta.url)('node:child_process') as typeof ChildProcess;
}

/**
 * The pid names a running process: not a zombie (dead, waiting for its parent or init to reap it —
 * which a lazily reaping init may take seconds to do, or a container without one never does), not
 * one already past the point of no return in exit(). kill(0) alone says yes to both.
 */
export function isAlive(pid: number | null | undefined, src: StartSource = SYSTEM_SOURCE): boolean {
  if (!pid || pid <= 0 || !signalsReach(pid)) return false;
  if (hasProc(src)) {
    const st = procStat(pid, src.procRoot);
    // Unreadable although kill(0) reached it: hidden from us (another user, hidepid), so alive.
    return st ? !isDeadState(st.state) : true;
  }
  const ps = psRows([pid], src);
  const row = ps?.get(pid);
  if (!ps) return true; // ps can't run: kill(0) is all there is
  return row ? !isDeadState(row.state) : false;
}

/** kill(0): the pid exists (EPERM: it does, and belongs to someone else). Zombies included. */
function signalsReach(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process state (Linux stat's field 3, `ps -o stat`'s first letter) that means it has died. */
export const isDeadState = (state: string): boolean => state.startsWith('Z') || state.startsWith('X') || state === 'x';

function signalSafe(pid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(pid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * Signal a whole process group (runtimes run detached as group leaders); falls back to the pid.
 * No identity check: for our own unreaped children (their pid can't be reused); recorded processes
 * go through `signalProcess`.
 */
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
 * Where start times are read. Two sources, told apart by the sign of the value:
 * - `<procRoot>/<pid>/stat` field 22 (Linux): clock ticks since boot, a value >= 0;
 * - where `<procRoot>/self/stat` is missing (macOS, the BSDs): `ps -o lstart=` read in the C locale
 *   and UTC, stored as minus its seconds since the epoch, a value < 0.
 * A recorded start is always compared with one read from its own source, so the two never meet,
 * and both are stable for the life of the process on one machine. Tests pass their own source (an
 * empty proc root, another `ps`) to force the fallback.
 */
export interface StartSource {
  procRoot: string;
  ps: string;
}

export const SYSTEM_SOURCE: StartSource = Object.freeze({ procRoot: '/proc', ps: 'ps' });

// A fixed PATH, locale and zone: the same process must read back the same start, whoever asks.
const PS_ENV = { PATH: '/bin:/usr/bin', LC_ALL: 'C', TZ: 'UTC' };
const PS_TIMEOUT_MS = 5000;

const procSeen = new Map<string, boolean>();
function hasProc(src: StartSource): boolean {
  let v = procSeen.get(src.procRoot);
  if (v === undefined) procSeen.set(src.procRoot, (v = existsSync(`${src.procRoot}/self/stat`)));
  return v;
}

/**
 * When the process started (see StartSource for the unit): with the pid it names one process for
 * good. Null where the pid is gone or neither source can be read.
 */
export function processStartTime(pid: number, src: StartSource = SYSTEM_SOURCE): number | null {
  if (hasProc(src)) return procStat(pid, src.procRoot)?.start ?? null;
  return psRows([pid], src)?.get(pid)?.start ?? null;
}

/** The process group of `pid` (/proc stat field 5); null where unknown. */
export function processGroupId(pid: number): number | null {
  return procStat(pid, SYSTEM_SOURCE.procRoot)?.pgid ?? null;
}

export interface ProcStat {
  /** Field 3: R, S, D, T, Z (zombie), X (dead)… */
  state: string;
  /** Field 4. */
  ppid: number;
  /** Field 5. */
  pgid: number;
  /** Field 6. */
  session: number;
  /** Field 22: clock ticks since boot. */
  start: number;
}

/** `<procRoot>/<pid>/stat`'s fields klaude reads; null when unreadable (gone, or no /proc). */
export function procStat(pid: number, procRoot: string = SYSTEM_SOURCE.procRoot): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`${procRoot}/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // comm (field 2) may hold spaces and parentheses: fields are counted after its last ')'.
  const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const pgid = Number(rest[5 - 3]); // rest[0] is field 3 (state)
  const start = Number(rest[22 - 3]);
  if (!rest[0] || !Number.isFinite(pgid) || !Number.isFinite(start)) return null;
  return { state: rest[0], ppid: Number(rest[4 - 3]), pgid, session: Number(rest[6 - 3]), start };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `ps -o lstart` in the C locale and UTC ("Wed Nov 25 16:42:08 2026") as seconds since the epoch. */
export function parseLstart(text: string): number | null {
  const m = /^[A-Z][a-z]{2}\s+([A-Z][a-z]{2})\s+(\d{1,2})\s+(\d{1,2}):(\d{2}):(\d{2})\s+(\d{4})$/.exec(text.trim());
  const month = m ? MONTHS.indexOf(m[1]!) : -1;
  if (!m || month < 0) return null;
  return Date.UTC(Number(m[6]), month, Number(m[2]), Number(m[3]), Number(m[4]), Number(m[5])) / 1000;
}

interface PsRow {
  /** `ps -o stat`: its first letter is the state (Z: zombie). */
  state: string;
  /** Minus the `lstart` seconds since the epoch (see StartSource). */
  start: number | null;
}

/**
 * State and start time of those of `pids` that exist, by one `ps` run; null when `ps` cannot be
 * run at all. `stat` and `lstart` are in every ps of Linux, macOS and the BSDs.
 */
function psRows(pids: readonly number[], src: StartSource): Map<number, PsRow> | null {
  const out = new Map<number, PsRow>();
  if (pids.length === 0) return out;
  let text: string;
  try {
    text = childProcess().execFileSync(src.ps, ['-o', 'pid=,stat=,lstart=', '-p', pids.join(',')], {
      encoding: 'utf8',
      env: PS_ENV,
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: PS_TIMEOUT_MS,
    });
  } catch (e) {
    // ps exits 1 when none of the pids exists; anything else (not found, killed) is "can't tell".
    const err = e as { status?: number | null; stdout?: unknown };
    if (err.status !== 1 || typeof err.stdout !== 'string') return null;
    text = err.stdout;
  }
  for (const line of text.split('\n')) {
    const m = /^\s*(\d+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!m) continue;
    const t = parseLstart(m[3]!);
    out.set(Number(m[1]), { state: m[2]!, start: t === null ? null : -t });
  }
  return out;
}

/** A recorded process: its pid and the start time read when it was recorded (null: unknown). */
export interface Recorded {
  pid: number;
  pidStart: number | null;
}

/**
 * - `same`: alive and still the process that started at the recorded time;
 * - `other`: the pid is alive but names another process (reused);
 * - `gone`: no process has the pid;
 * - `unknown`: the pid is alive and no start time can be compared (none recorded, or its source
 *   can't be read here): alive by the pid alone, which never earns a SIGKILL.
 */
export type Identity = 'same' | 'other' | 'gone' | 'unknown';

/**
 * The identity of each recorded process, with at most one `ps` run for all of them. A zombie is
 * `gone`: it has died, whoever has yet to reap it.
 */
export function identities(rows: readonly Recorded[], src: StartSource = SYSTEM_SOURCE): Identity[] {
  const reached = rows.map((r) => r.pid > 0 && signalsReach(r.pid));
  const proc = hasProc(src);
  // A start read from ps is compared with ps; without /proc, ps also tells each live pid's state.
  const viaPs = rows.filter((r, i) => reached[i] && (!proc || (r.pidStart !== null && r.pidStart < 0)));
  const ps = viaPs.length
    ? psRows(
        viaPs.map((r) => r.pid),
        src,
      )
    : null;
  return rows.map((r, i): Identity => {
    if (!reached[i]) return 'gone';
    if (proc) {
      const st = procStat(r.pid, src.procRoot);
      // Unreadable although kill(0) reached it: it ended meanwhile, or is hidden from us.
      if (!st) return isAlive(r.pid, src) ? 'unknown' : 'gone';
      if (isDeadState(st.state)) return 'gone';
      if (r.pidStart === null) return 'unknown';
      if (r.pidStart >= 0) return st.start === r.pidStart ? 'same' : 'other';
    }
    if (!ps) return 'unknown';
    const row = ps.get(r.pid);
    if (!row || isDeadState(row.state)) return 'gone';
    if (r.pidStart === null || r.pidStart >= 0 || row.start === null) return 'unknown';
    return row.start === r.pidStart ? 'same' : 'other';
  });
}

/** Alive as far as can be told: the same process, or a live pid whose start can't be compared. */
export const countsAsAlive = (id: Identity): boolean => id === 'same' || id === 'unknown';

/** The pid is alive and (when its start time can be compared) still the process that started at `start`. */
export function isSameProcess(
  pid: number | null | undefined,
  start: number | null | undefined,
  src: StartSource = SYSTEM_SOURCE,
): boolean {
  if (!pid) return false;
  return countsAsAlive(identities([{ pid, pidStart: start ?? null }], src)[0]!);
}

/** Those of `rows` whose process still runs (pid + start time, as isSameProcess), in order. */
export function liveRows<T extends Recorded>(rows: readonly T[], src: StartSource = SYSTEM_SOURCE): T[] {
  if (rows.length === 0) return [];
  const ids = identities(rows, src);
  return rows.filter((_, i) => countsAsAlive(ids[i]!));
}

/**
 * Signal a recorded process (or, with `group`, the group it leads) only while its pid still names
 * it; SIGKILL only when that is known by its start time, never on the pid alone. True if sent.
 */
export function signalProcess(
  p: Recorded,
  signal: NodeJS.Signals,
  opts: { group?: boolean; source?: StartSource } = {},
): boolean {
  const id = identities([p], opts.source)[0];
  if (id === 'gone' || id === 'other' || (id === 'unknown' && signal === 'SIGKILL')) return false;
  return opts.group ? signalGroup(p.pid, signal) : signalSafe(p.pid, signal);
}

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

/**
 * SIGTERM, wait `graceMs`, SIGKILL if still the same process (by start time: one whose start is
 * unknown keeps its SIGTERM only). Resolves true once the recorded process is gone.
 */
export async function terminateProcess(
  p: Recorded,
  graceMs: number,
  opts: { group?: boolean; source?: StartSource } = {},
): Promise<boolean> {
  const ours = (): boolean => isSameProcess(p.pid, p.pidStart, opts.source);
  if (!signalProcess(p, 'SIGTERM', opts)) return !ours();
  if (await waitForPidExit(p.pid, graceMs)) return true;
  if (!signalProcess(p, 'SIGKILL', opts)) return !ours();
  return waitForPidExit(p.pid, 2000);
}

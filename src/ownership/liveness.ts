/**
 * Is an agent's runtime alive, and what to do when it died without saying so (SIGKILL, OOM,
 * power loss): mark the session failed and append a closing `done` to its log, so followers and
 * `klaude wait` end instead of waiting forever. Only headless sessions are judged: a session with
 * a foreground `claude` (TUI) process belongs to its supervisor, one in a PTY host to `klaude talk`.
 */
import { isTerminal } from '../core/status.js';
import { tx, type Db } from '../db/client.js';
import {
  currentProcesses,
  endProcess,
  getProcess,
  lastProcess,
  markSignalled,
  type ProcessRow,
} from '../db/repos/processes.js';
import { askedRecovery } from '../db/repos/checkpoints.js';
import { getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { appendSessionEvent } from '../logs/writer.js';
import { isSameProcess, liveRows, signalProcess } from '../lib/process.js';
import { claimedByOther } from './conversation-claim.js';
import { zoneOf } from '../core/zone.js';

/** A session with no runtime process yet is given this long (since its last update) to get one. */
export const START_GRACE_MS = 30_000;

/** The session's current runtime process, if it is alive (pid + start time). */
export function liveRuntime(db: Db, sessionId: string): ProcessRow | null {
  return liveRows(currentProcesses(db, sessionId, 'runtime'))[0] ?? null;
}

/**
 * CLI children (`claude -p`…) of the session whose runtime is gone but which still run: signal
 * them (SIGTERM + SIGCONT, once; the watchdog or reconcile escalates) and say whether any is still
 * alive. Rows of ended ones are closed. Never touches a CLI whose runtime lives.
 */
export function endOrphanedClis(db: Db, sessionId: string): boolean {
  let alive = false;
  for (const p of currentProcesses(db, sessionId, 'cli')) {
    const owner = p.parentProcessId === null ? undefined : getProcess(db, p.parentProcessId);
    if (owner && owner.exitedAt === null && isSameProcess(owner.pid, owner.pidStart)) continue;
    if (!isSameProcess(p.pid, p.pidStart)) {
      endProcess(db, p.id, { exitCode: null, signal: p.signal ?? 'LOST' });
      continue;
    }
    alive = true;
    if (p.signal === 'SIGTERM') continue; // told already: its watchdog (or reconcile) escalates
    signalProcess(p, 'SIGTERM');
    signalProcess(p, 'SIGCONT');
    markSignalled(db, p.id, 'SIGTERM');
  }
  return alive;
}

/**
 * The session is open interactively: in a supervisor's foreground (a TUI claude, kind 'claude') or
 * in a PTY session of `klaude talk` (kind 'pty': the PTY server, current while it hosts the session). Either way a person drives it.
 */
export function inForeground(db: Db, sessionId: string): ProcessRow | null {
  return (
    liveRows(currentProcesses(db, sessionId, 'claude'))[0] ??
    liveRows(currentProcesses(db, sessionId, 'pty'))[0] ??
    null
  );
}

/** Where an interactive session is open, for messages: "a klaude foreground (claude pid 12)". */
export function describeForeground(p: ProcessRow): string {
  return p.kind === 'pty'
    ? `a PTY session (klaude talk; PTY server pid ${p.pid})`
    : `a klaude foreground (claude pid ${p.pid})`;
}

/**
 * If `session` claims to be live but no runtime runs it (dead pid, or none started within
 * START_GRACE_MS), end it as failed. Returns the updated row when it did; undefined otherwise.
 */
export function reapIfDead(db: Db, sessionId: string, now: number = Date.now()): SessionRow | undefined {
  const s = getSession(db, sessionId);
  // A queued agent has no runtime yet by design; it starts when a run slot frees.
  if (!s || isTerminal(s.status) || s.status === 'queued' || inForeground(db, s.id)) return undefined;
  // A zone's agent runs on another machine: its mirror ends when the row over there does (zones/mirror.ts).
  if (zoneOf(s)) return undefined;
  // Died mid-turn with `agents.recover: ask`: it waits for the person, not for a runtime.
  if (s.status === 'waiting' && askedRecovery(db, s.id)) return undefined;
  // Someone is starting it (a recovery, a resume, a checkout): its runtime is on the way.
  if (claimedByOther(db, s.id)) return undefined;
  const rows = currentProcesses(db, s.id, 'runtime');
  if (liveRows(rows).length > 0) return undefined;
  if (rows.length === 0 && now - s.updatedAt < START_GRACE_MS) return undefined;
  if (rows.length === 0 && s.type === 'tui') return undefined;
  // Its runtime's death may be recorded already (by its death notice, after-death.ts).
  const dead = rows[0] ?? lastProcess(db, s.id, 'runtime');
  const reason = dead
    ? `the agent runtime (pid ${dead.pid}) ended without finishing`
    : 'the agent runtime never started';
  const updated = tx(db, () => {
    const cur = getSession(db, s.id);
    if (!cur || isTerminal(cur.status)) return undefined;
    // Judged on the rows read above: if since then an owner ended one (with its real exit code) or
    // a new runtime started, the next look judges again.
    if (rowIds(currentProcesses(db, s.id, 'runtime')) !== rowIds(rows)) return undefined;
    for (const p of rows) endProcess(db, p.id, { exitCode: null, signal: 'LOST' });
    return updateSession(db, s.id, { status: 'failed', endedAt: now, activity: null, error: reason });
  });
  if (updated?.logPath) {
    try {
      appendSessionEvent(updated.logPath, { type: 'done', status: 'failed', error: reason });
    } catch {
      /* the DB says failed; a missing log is not worse */
    }
  }
  return updated;
}

const rowIds = (rows: readonly ProcessRow[]): string => rows.map((p) => p.id).join(',');

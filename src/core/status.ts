/**
 * Session statuses and the transitions between them. Pure: imports nothing of the project.
 *
 * - pending: created, nothing started yet.
 * - queued: created beyond the run limit (`agents.maxRunning`, `runtimes.<name>.maxRunning`); it
 *   becomes pending, first in first out, when a run ends and frees a slot.
 * - running: the runtime is working on a turn.
 * - waiting: mid-turn but blocked on someone (permission prompt, question to the person).
 * - idle: alive, between turns (a TUI at its prompt, an agent awaiting a message).
 * - done / failed / interrupted: terminal; the process is gone. Only a resume brings one back.
 * - cancelled: terminal; a queued agent interrupted before it ever ran.
 */
export const SESSION_STATUSES = [
  'pending',
  'queued',
  'running',
  'waiting',
  'idle',
  'done',
  'failed',
  'interrupted',
  'cancelled',
] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

const TERMINAL: ReadonlySet<SessionStatus> = new Set(['done', 'failed', 'interrupted', 'cancelled']);
const ACTIVE: ReadonlySet<SessionStatus> = new Set(['running', 'waiting']);

/** Listings hide sessions that ended longer ago than this (`klaude sessions` without --all, shell completion). */
export const HIDE_ENDED_AFTER_MS = 7 * 24 * 3600 * 1000;

export function isSessionStatus(s: unknown): s is SessionStatus {
  return typeof s === 'string' && (SESSION_STATUSES as readonly string[]).includes(s);
}

/** done, failed, interrupted, cancelled: no process behind the session any more. */
export function isTerminal(s: SessionStatus): boolean {
  return TERMINAL.has(s);
}

/** running or waiting: in the middle of a turn (idle and pending are alive but not working). */
export function isActive(s: SessionStatus): boolean {
  return ACTIVE.has(s);
}

export interface TransitionOptions {
  /** The move is a resume (checkout, `klaude message` to a finished agent): terminal → live is allowed. */
  resume?: boolean;
}

export type TransitionResult = { allowed: true } | { allowed: false; reason: string };

/**
 * Whether `from → to` is a legal status change.
 * - Same status: allowed (idempotent writes from hooks and runtimes).
 * - Nothing goes back to pending.
 * - pending and the live states (running, waiting, idle) may move to any live or terminal state.
 * - A terminal state moves to a live state only with `{ resume: true }`, and never to another terminal
 *   state (the first ending wins; a late "done" after an interrupt is ignored).
 */
export function applyTransition(
  from: SessionStatus,
  to: SessionStatus,
  opts: TransitionOptions = {},
): TransitionResult {
  if (from === to) return { allowed: true };
  if (to === 'pending' && from !== 'queued')
    return { allowed: false, reason: `cannot go back to pending from ${from}` };
  if (to === 'queued' && from !== 'pending')
    return { allowed: false, reason: `only a new session can be queued (it is ${from})` };
  if (!isTerminal(from)) return { allowed: true };
  if (isTerminal(to)) return { allowed: false, reason: `${from} is final; it cannot become ${to}` };
  if (opts.resume) return { allowed: true };
  return { allowed: false, reason: `${from} → ${to} needs a resume` };
}

/**
 * A checkout that takes a running agent (`--force`, the dashboard's Enter) ends its turn the way
 * `klaude interrupt` does before its runtime is stopped: claude, interrupted, writes the words it
 * has so far into the transcript (with `[Request interrupted by user]`), so the claude resumed in
 * the foreground shows them. A SIGTERM'd `claude -p` writes nothing of the message in flight.
 */
import { agentSocketPath } from '../control/agent-socket.js';
import { controlRequest } from '../control/client.js';
import { getSession } from '../db/repos/sessions.js';
import { isSameProcess, sleep } from '../lib/process.js';
import type { SupervisorContext } from './context.js';

const EXIT_POLL_MS = 50;

/**
 * Interrupt the session's turn and wait (bounded by `graceMs`) for its runtime, which ends its run
 * on an interrupted turn, to exit. True when it did: nothing is left to stop.
 */
export async function interruptTurnFirst(
  ctx: SupervisorContext,
  sessionId: string,
  runtime: { pid: number; pidStart: number | null },
  graceMs: number,
): Promise<boolean> {
  const s = getSession(ctx.db, sessionId);
  if (!s || (s.status !== 'running' && s.status !== 'waiting')) return false;
  try {
    await controlRequest(
      agentSocketPath(ctx.home, s.projectId, s.id, ctx.env),
      'interrupt',
      { sessionIds: [s.id] },
      { timeoutMs: Math.min(graceMs, 5000) },
    );
  } catch (err) {
    // Between turns, or its socket is gone: stopping it loses nothing more.
    ctx.log.info('interrupting the turn before checkout failed; stopping the run', { sessionId, err });
    return false;
  }
  // No change notification for another process's exit: short sleeps, bounded.
  const deadline = Date.now() + graceMs;
  while (isSameProcess(runtime.pid, runtime.pidStart)) {
    if (Date.now() > deadline) return false;
    await sleep(EXIT_POLL_MS);
  }
  return true;
}

/**
 * Recovery from a run that died mid-turn (design notes: khlone checkpoint + `[RESUME]` prompt).
 * The runtime's own watcher handles its CLI dying (runtime/recover-cli.ts); this handles the runtime
 * itself dying (SIGKILL, OOM, reboot), found by its death notice at once (after-death.ts), or
 * after a reboot by whoever looks next (`wait`, `message`, `interrupt`, listings after reconcile). `agents.recover`: `auto` resumes the same
 * conversation with a resume prompt built from the checkpoint, at most once per turn; `ask` marks
 * the session `waiting` (needs you) until a `klaude message` resumes it; `off` leaves it ended.
 */
import { shortId } from '../core/ids.js';
import { zoneMovedOf } from '../core/zone.js';
import { isTerminal } from '../core/status.js';
import { claimRecovery, getCheckpoint, midTurnSessionIds, type CheckpointRow } from '../db/repos/checkpoints.js';
import { currentProcesses, endProcess, lastProcess } from '../db/repos/processes.js';
import { getSession, setUndelivered, undeliveredOf, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { appendSessionEvent } from '../logs/writer.js';
import { isAlive, sleep } from '../lib/process.js';
import { isKlaudeError } from '../lib/errors.js';
import { claimConversation, releaseConversation } from '../ownership/conversation-claim.js';
import { trackBackground, type AgentServices } from './context.js';
import type { AgentEventInput } from '../core/events.js';
import { launchFor } from './launch-env.js';
import { spawnRuntime, type RuntimeRequest } from './launch.js';
import { endOrphanedClis, inForeground, liveRuntime, reapIfDead } from '../ownership/liveness.js';
import { startQueued } from './queue.js';
import type { ImageRef } from '../core/image.js';

const PARTIAL_SHOWN = 1500;
/** How long recovery holds the conversation claim waiting for its runtime to record itself. */
const HANDOFF_MS = 15_000;
/** After reconcile, how long to wait for a dead runtime's CLI to end before recovery gives up for now. */
const ORPHAN_WAIT_MS = 5_000;
const TOOLS_SHOWN = 15;
/** The conversation claim's purpose while recovery hands a conversation to its new runtime. */
export const RECOVERY_PURPOSE = 'crash recovery';

/** The `[RESUME]` prompt: what the turn asked, what was done, the answer so far. */
export function resumePrompt(
  cp: Pick<CheckpointRow, 'prompt' | 'toolCalls' | 'partialText'>,
  cause: string,
  undelivered: readonly string[] = [],
): string {
  const calls = cp.toolCalls ?? [];
  const lines = [
    `[RESUME] Your previous run stopped in the middle of a turn (${cause}); klaude resumed this conversation.`,
  ];
  if (calls.length) {
    const shown = calls.slice(-TOOLS_SHOWN);
    lines.push(
      `Tool calls already made in that turn (${calls.length}${calls.length > shown.length ? `, last ${shown.length}` : ''}):`,
    );
    for (const c of shown) lines.push(`- ${c}`);
  } else {
    lines.push('No tool call had been made in that turn yet.');
  }
  const partial = (cp.partialText ?? '').trim();
  if (partial) {
    const cut = partial.length > PARTIAL_SHOWN ? `…${partial.slice(-PARTIAL_SHOWN)}` : partial;
    lines.push('Your partial answer so far:', cut);
  }
  lines.push(
    'Check what is already done before repeating anything (a command may have run only partly), then continue from where you left off.',
    `The request of that turn was:\n${cp.prompt ?? '(not recorded)'}`,
  );
  // Sent by the person while that turn ran, held for after it: they come now, not lost.
  if (undelivered.length)
    lines.push(`Messages sent to you during that turn, not delivered before it stopped:\n${undelivered.join('\n\n')}`);
  return lines.join('\n');
}

/** Thrown inside the claim transaction when the turn is not (or no longer) recoverable. */
const NOT_RECOVERABLE = new Error('not recoverable');

/**
 * The session's runtime is gone mid-turn: claim its recovery (the conversation claim, and the
 * checkpoint's once-per-turn mark, in one transaction) and resume it, or mark it for the person.
 * True when recovery has the session (the caller must not reap it): also while the dead
 * runtime's CLI is still being ended, or someone else holds the conversation.
 */
export function recoverLostRun(svc: AgentServices, sessionId: string): boolean {
  const starting: Promise<void>[] = [];
  const r = tryRecover(svc, sessionId, starting);
  for (const p of starting) trackBackground(svc.db, p);
  return r !== false;
}

/**
 * A message to an agent whose runtime died mid-turn: recovery resumes it with the message folded
 * into the resume prompt. 'recovering': this call started that recovery (and waited for its runtime
 * to record itself); 'deferred': the dead runtime's CLI is still being ended; false: not a lost run.
 */
export async function recoverWithMessage(
  svc: AgentServices,
  sessionId: string,
  message: string,
  images: ImageRef[] = [],
): Promise<'recovering' | 'deferred' | false> {
  const starting: Promise<void>[] = [];
  const r = tryRecover(svc, sessionId, starting, message, images);
  await Promise.all(starting);
  return r === 'taken' && starting.length > 0 ? 'recovering' : r === 'deferred' ? 'deferred' : false;
}

/**
 * recoverLostRun, saying whether recovery was only put off (the dead runtime's CLI still runs);
 * the start of the resuming runtime is added to `starting` for callers that close the DB after.
 */
function tryRecover(
  svc: AgentServices,
  sessionId: string,
  starting: Promise<void>[],
  message?: string,
  images: ImageRef[] = [],
): 'taken' | 'deferred' | false {
  const mode = svc.config['agents.recover'];
  if (mode === 'off') return false;
  const s = getSession(svc.db, sessionId);
  if (!s || s.type === 'tui' || s.status === 'queued' || (isTerminal(s.status) && s.status !== 'interrupted'))
    return false;
  // Its conversation went to the person's machine (a zone's `klaude checkout --force`): it goes on there.
  if (zoneMovedOf(s)) return false;
  const cp0 = getCheckpoint(svc.db, s.id);
  if (!cp0?.inTurn || cp0.recoveredTurn === cp0.turn || liveRuntime(svc.db, s.id) || inForeground(svc.db, s.id))
    return false;
  // A CLI left by the dead runtime may still write the conversation: it is ended first (SIGTERM,
  // its watchdog escalates); recovery goes ahead on a later look, once it is gone.
  if (endOrphanedClis(svc.db, s.id)) return 'deferred';
  const dead = currentProcesses(svc.db, s.id, 'runtime');
  // Its death notice may have recorded the dead runtime already (after-death.ts): name it all the same.
  const deadPid = (dead[0] ?? lastProcess(svc.db, s.id, 'runtime'))?.pid;
  const cause = deadPid ? `its runtime (pid ${deadPid}) died` : 'its runtime died';
  let cp: CheckpointRow | null = null;
  const undelivered = undeliveredOf(s);
  try {
    claimConversation(svc.db, s.id, RECOVERY_PURPOSE, () => {
      cp = claimRecovery(svc.db, s.id, mode === 'ask' ? { ask: cause } : {});
      if (!cp) throw NOT_RECOVERABLE;
      // `ask` keeps them for the person's resume (message.ts); `auto` sends them now.
      if (mode !== 'ask') setUndelivered(svc.db, s.id, []);
      for (const p of dead) endProcess(svc.db, p.id, { exitCode: null, signal: 'LOST' });
      updateSession(svc.db, s.id, { status: mode === 'ask' ? 'waiting' : 'running', endedAt: null });
    });
  } catch (e) {
    if (e === NOT_RECOVERABLE) return false;
    if (isKlaudeError(e) && e.code === 'E_SESSION_BUSY') return 'taken'; // someone else is taking it (checkout)
    throw e;
  }
  if (mode === 'ask') {
    releaseConversation(svc.db, s.id, RECOVERY_PURPOSE);
    logEvent(s, { type: 'recovered', cause, mode: 'ask' });
    logEvent(s, {
      type: 'status',
      status: 'waiting',
      reason: `needs you: \`klaude message ${shortId(s.id)} "…"\` resumes it`,
    });
    return 'taken';
  }
  const prompt = resumePrompt(cp!, cause, undelivered);
  starting.push(spawnRecovery(svc, s, message ? withMessage(prompt, message) : prompt, cause, images));
  return 'taken';
}

/** A message sent while the run was down joins the resume prompt. */
export function withMessage(prompt: string, message: string): string {
  return `${prompt}\n\nThe person's message: ${message}`;
}

function logEvent(s: SessionRow, e: Parameters<typeof appendSessionEvent>[1]): void {
  try {
    if (s.logPath) appendSessionEvent(s.logPath, e);
  } catch {
    /* the DB has the state */
  }
}

/** Start the runtime that resumes the conversation; the conversation claim passes to it once it has recorded itself. */
async function spawnRecovery(
  svc: AgentServices,
  s: SessionRow,
  prompt: string,
  cause: string,
  images: ImageRef[],
): Promise<void> {
  const cwd = (s.metadata as { cwd?: unknown } | null)?.cwd;
  try {
    let pid: number;
    try {
      pid = await spawnRuntime({
        home: svc.home,
        sessionId: s.id,
        request: { prompt, source: 'recover', recoverCause: cause, ...(images.length ? { images } : {}) },
        ...launchFor(svc, s),
        cwd: typeof cwd === 'string' ? cwd : svc.projectRoot,
      });
    } catch (e) {
      // Only a runtime that could not start fails the run; anything after is the runtime's to record.
      updateSession(svc.db, s.id, { status: 'failed', endedAt: Date.now() });
      logEvent(s, {
        type: 'done',
        status: 'failed',
        error: `recovery could not start a runtime: ${(e as Error).message}`,
      });
      return;
    }
    const deadline = Date.now() + HANDOFF_MS;
    while (
      Date.now() < deadline &&
      isAlive(pid) &&
      !currentProcesses(svc.db, s.id, 'runtime').some((p) => p.pid === pid)
    )
      await sleep(50);
  } finally {
    releaseConversation(svc.db, s.id, RECOVERY_PURPOSE);
  }
}

/**
 * A session whose runtime may have died: recover it (see above), else end it as failed and give
 * its run slot to the queue. Returns the ended row when it was reaped.
 */
export function reapOrRecover(svc: AgentServices, sessionId: string): SessionRow | undefined {
  // Alive now: nothing to do this look. Otherwise a runtime just sent SIGKILL, still alive for
  // recovery's look and dead by the reap's a moment later, had its run failed, not resumed.
  if (liveRuntime(svc.db, sessionId)) return undefined;
  if (recoverLostRun(svc, sessionId)) return undefined;
  const ended = reapIfDead(svc.db, sessionId);
  if (ended) void startQueued(svc);
  return ended;
}

/**
 * After `reconcile` found dead processes: recover the project's agents cut off mid-turn (those it
 * ended, and those whose runtime died while their CLI lived on), then fill freed run slots.
 */
export async function recoverAfterReconcile(svc: AgentServices, endedIds: readonly string[]): Promise<void> {
  const starting: Promise<void>[] = [];
  for (const id of new Set([...endedIds, ...midTurnSessionIds(svc.db, svc.projectHash)])) {
    // Nobody may look again soon: give a dead runtime's orphaned CLI a moment to go (its watchdog ends it).
    const deadline = Date.now() + ORPHAN_WAIT_MS;
    while (tryRecover(svc, id, starting) === 'deferred' && Date.now() < deadline) await sleep(100);
  }
  await Promise.all(starting);
  await startQueued(svc);
}

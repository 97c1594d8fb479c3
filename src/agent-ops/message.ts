/**
 * Talking to running agents: deliver a message (to the live runtime's socket, or by resuming the
 * agent's native session in a new runtime when none runs) and interrupt the current turn.
 * Used by `klaude message` / `klaude interrupt` directly and by the supervisor's handlers.
 */
import { statSync } from 'node:fs';
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import { controlRequest } from '../control/client.js';
import type { Action, PayloadOf, ResultOf } from '../control/protocol.js';
import { tx } from '../db/client.js';
import { getProject } from '../db/repos/projects.js';
import { cancelQueued } from '../db/repos/queue.js';
import { appendSessionEvent } from '../logs/writer.js';
import { getSession, setUndelivered, undeliveredOf, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import { isAlive, sleep } from '../lib/process.js';
import { currentProcesses } from '../db/repos/processes.js';
import {
  claimConversation,
  claimedByOther,
  releaseConversation,
  RESUME_PURPOSE,
} from '../ownership/conversation-claim.js';
import type { AgentServices } from './context.js';
import { launchFor } from './launch-env.js';
import { spawnRuntime, type RuntimeRequest } from './launch.js';
import { askedRecovery, endTurn } from '../db/repos/checkpoints.js';
import { describeForeground, endOrphanedClis, inForeground, liveRuntime } from '../ownership/liveness.js';
import { assertWithinBudget } from './budget.js';
import { reapOrRecover, RECOVERY_PURPOSE, recoverWithMessage, resumePrompt, withMessage } from './recover.js';
import { agentSocketPath } from '../control/agent-socket.js';
import { queuedRequestOf, type QueuedRequest } from './queue.js';
import { assertTakesImages } from './attachments.js';
import type { ImageRef } from '../core/image.js';
import { launchMetadata } from '../agent-types/launch-settings.js';
import { assertWorktreeThere } from '../git/worktree.js';
import { zoneMovedOf, zoneOf } from '../core/zone.js';
import { askZone, type ZoneAccess } from '../zone-client/ask-link.js';

/** What reaching the link of a session's zone takes (zone-client/client.ts). */
export function zoneAccess(svc: AgentServices, zone: string): ZoneAccess {
  return { home: svc.home, env: svc.env, inv: svc.inv, zone };
}

/**
 * A zone's agent whose conversation `klaude checkout` took to the person's machine is not resumed
 * over there again (one writer per conversation): not by its link, not at the zone's keyboard.
 */
export function assertNotMovedAway(s: SessionRow): void {
  const moved = zoneMovedOf(s);
  if (!moved) return;
  throw new KlaudeError(
    'E_ZONE_MOVED',
    `${shortId(s.id)}'s conversation was taken to ${moved.to} by \`klaude checkout\`: it goes on there, not here`,
    { hint: `talk to it on ${moved.to} (\`klaude talk ${shortId(s.id)}\`, \`klaude message\`)` },
  );
}

/** How long to keep trying a runtime that is starting up or finishing its run. */
export const TRANSITION_WAIT_MS = 15_000;
const RETRY_MS = 50;

const unreachable = (e: unknown): boolean =>
  isKlaudeError(e) && (e.code === 'E_NO_SUPERVISOR' || e.code === 'E_IO' || e.code === 'E_AGENT_NOT_RUNNING');

/** One request to the agent's runtime socket. */
export function askRuntime<A extends Action>(
  svc: AgentServices,
  s: SessionRow,
  action: A,
  payload: PayloadOf<A>,
): Promise<ResultOf<A>> {
  return controlRequest(agentSocketPath(svc.home, s.projectId, s.id, svc.env), action, payload, { timeoutMs: 5000 });
}

export interface Delivery {
  /** 'recovering': its run had died mid-turn; the message went into the recovery's resume prompt. */
  delivered: 'stdin' | 'queued' | 'resumed' | 'recovering';
  pid: number;
  /** The native session the agent continues (resumed deliveries). */
  nativeSessionId: string | null;
  /** Resumed deliveries: the status the agent had stopped with, and its log's size just before the new run. */
  previousStatus?: string;
  logOffset?: number;
  /** An agent of a zone whose link is down now: the message is held for it, and delivered (once) when the link is back. */
  held?: string;
}

/**
 * Give `prompt` (and `images`, kept by attachments.ts; claude agents only) to the agent: queued for
 * its running runtime, or — when its runtime has stopped — a new runtime resumes its native session
 * with the prompt as the next message.
 */
export async function deliverMessage(
  svc: AgentServices,
  sessionId: string,
  prompt: string,
  images: ImageRef[] = [],
): Promise<Delivery> {
  if (prompt.trim() === '' && images.length === 0) throw new KlaudeError('E_USAGE', 'the message is empty');
  const deadline = Date.now() + TRANSITION_WAIT_MS;
  for (;;) {
    const s = getSession(svc.db, sessionId);
    if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${shortId(sessionId)} no longer exists`);
    assertNotMovedAway(s);
    const zone = zoneOf(s);
    if (zone && images.length > 0)
      throw new KlaudeError(
        'E_IMAGE_UNSUPPORTED',
        `agent ${shortId(s.id)} runs in zone ${zone.name}: images are not carried to a zone yet`,
        {
          hint: 'send the message without --image, or put the image in the repository and name its path',
        },
      );
    // Open here in a talk session or a foreground (a zone's agent too: over `ssh -t`): typed to there.
    const fg = inForeground(svc.db, s.id);
    if (fg) {
      throw new KlaudeError('E_SESSION_BUSY', `${shortId(s.id)} is open in ${describeForeground(fg)}`, {
        hint:
          fg.kind === 'pty'
            ? `type to it there (\`klaude talk ${shortId(s.id)}\`), or exit that claude first`
            : 'type to it there, or exit that claude first',
      });
    }
    if (zone) return askZone<Delivery>(zoneAccess(svc, zone.name), { op: 'message', sid: s.id, prompt }, 60_000);
    if (images.length > 0) await assertTakesImages(s);
    if (s.status === 'queued' && addToQueuedRequest(svc, s.id, prompt, images))
      return { delivered: 'queued', pid: 0, nativeSessionId: s.nativeSessionId };
    const live = liveRuntime(svc.db, s.id);
    if (live) {
      try {
        const r = await askRuntime(svc, s, 'message', {
          sessionId: s.id,
          prompt,
          ...(images.length ? { images } : {}),
        });
        return {
          delivered: r.delivered === 'queued' ? 'queued' : 'stdin',
          pid: r.pid ?? live.pid,
          nativeSessionId: s.nativeSessionId,
        };
      } catch (e) {
        if (!unreachable(e)) throw e;
      }
    } else {
      const taken = await takeStoppedRun(svc, s, prompt, images);
      if (taken) return taken;
    }
    // A runtime is starting (no socket yet) or finishing (socket closed, process still there).
    if (Date.now() > deadline) {
      throw new KlaudeError('E_SESSION_BUSY', `agent ${shortId(s.id)} is between runs and did not settle`, {
        hint: `try again in a moment; \`klaude logs ${shortId(s.id)}\` shows what it is doing`,
      });
    }
    await sleep(RETRY_MS);
  }
}

/**
 * No runtime runs the agent: if it died mid-turn, recovery resumes it with the message in its
 * resume prompt; if it is stopped, a resume starts it with the message. Null: in transition (a
 * recovery or a start is under way elsewhere, a dead run's CLI is still ending): try again.
 */
async function takeStoppedRun(
  svc: AgentServices,
  s: SessionRow,
  prompt: string,
  images: ImageRef[],
): Promise<Delivery | null> {
  const recovery = await recoverWithMessage(svc, s.id, prompt, images);
  if (recovery === 'recovering') {
    const live = liveRuntime(svc.db, s.id);
    return { delivered: 'recovering', pid: live?.pid ?? 0, nativeSessionId: s.nativeSessionId };
  }
  if (recovery === 'deferred') return null;
  reapOrRecover(svc, s.id);
  // A CLI left by a runtime that died (SIGKILL) may still be writing the conversation: it is
  // ended first (its watchdog is already on it), so the resume is the only writer.
  if (endOrphanedClis(svc.db, s.id)) return null;
  // Refused before anything changes: a resume needs the agent's worktree.
  const cwd = launchMetadata(s)?.cwd;
  if (isTerminal(s.status) && cwd) assertWorktreeThere(s.worktreePath, cwd, s.id);
  // Past its spend limit it is not resumed: `klaude budget` raises the limit first.
  assertWithinBudget(svc.db, s.id);
  let previous: string | null;
  try {
    previous = claimForResume(svc, s.id);
  } catch (e) {
    // A recovery elsewhere is starting the agent: the message goes to the runtime it starts.
    if (isKlaudeError(e) && e.code === 'E_SESSION_BUSY' && busyWithRecovery(e)) return null;
    throw e;
  }
  return previous === null
    ? null
    : { ...(await resume(svc, s.id, prompt, previous, images)), previousStatus: previous };
}

const busyWithRecovery = (e: KlaudeError): boolean =>
  String((e.details as { holder?: unknown } | undefined)?.holder ?? '').startsWith(RECOVERY_PURPOSE);

/** Thrown inside the claim transaction when the session is not stopped (yet): roll back, retry. */
const NOT_STOPPED = new Error('not stopped');

/** A message to an agent still in the run queue joins its first prompt. False: it left the queue. */
function addToQueuedRequest(svc: AgentServices, id: string, prompt: string, images: ImageRef[]): boolean {
  return tx(svc.db, () => {
    const s = getSession(svc.db, id);
    const req = s?.status === 'queued' ? queuedRequestOf(s.metadata) : null;
    if (!s || !req) return false;
    const joined: QueuedRequest = { ...req, prompt: `${req.prompt}\n\n${prompt}`, images: [...req.images, ...images] };
    updateSession(svc.db, id, { metadata: { ...s.metadata, queuedRequest: joined } });
    return true;
  });
}

/**
 * Atomically take a stopped session for a resume (its conversation claim + status → running), so
 * two messages never start two runtimes and a checkout in progress is never raced: a live claim of
 * someone else throws E_SESSION_BUSY naming it. Stopped: a terminal status, or a TUI session
 * nobody has in the foreground. The claim passes to the runtime started (see resume).
 */
function claimForResume(svc: AgentServices, id: string): string | null {
  let previous: string | null = null;
  try {
    claimConversation(svc.db, id, RESUME_PURPOSE, () => {
      const s = getSession(svc.db, id);
      if (!s) throw NOT_STOPPED;
      const idleTui =
        s.type === 'tui' && s.status !== 'pending' && !inForeground(svc.db, id) && !liveRuntime(svc.db, id);
      // Died mid-turn with `agents.recover: ask`: the person's message resumes it.
      const parked = s.status === 'waiting' && askedRecovery(svc.db, id) !== null && !liveRuntime(svc.db, id);
      if (!isTerminal(s.status) && !idleTui && !parked) throw NOT_STOPPED;
      previous = s.status;
      updateSession(svc.db, id, { status: 'running', endedAt: null });
    });
    return previous;
  } catch (e) {
    if (e === NOT_STOPPED) return null;
    throw e;
  }
}

function sizeOf(file: string): number {
  try {
    return statSync(file).size;
  } catch {
    return 0;
  }
}

/** How long a resume holds the claim waiting for its runtime to record itself. */
const HANDOFF_MS = 15_000;

async function resume(
  svc: AgentServices,
  id: string,
  message: string,
  previous: string,
  images: ImageRef[],
): Promise<Delivery> {
  const s = getSession(svc.db, id)!;
  const parked = askedRecovery(svc.db, id);
  const cause = parked?.askCause ?? '';
  const request: RuntimeRequest = parked
    ? {
        prompt: withMessage(resumePrompt(parked, cause, undeliveredOf(s)), message),
        source: 'recover',
        recoverCause: cause,
        ...(images.length ? { images } : {}),
      }
    : { prompt: message, source: 'message', ...(images.length ? { images } : {}) };
  const cwd = launchMetadata(s)?.cwd ?? getProject(svc.db, s.projectId)?.rootPath ?? process.cwd();
  // Where the new run's events start: after anything written for the previous run (a reaper's `done`).
  const logOffset = s.logPath ? sizeOf(s.logPath) : undefined;
  try {
    assertWorktreeThere(s.worktreePath, cwd, s.id);
    const pid = await spawnRuntime({
      home: svc.home,
      sessionId: s.id,
      request,
      ...launchFor(svc, s),
      cwd,
    });
    if (parked) setUndelivered(svc.db, id, []); // in its resume prompt now
    // Hold the claim until the runtime's process row exists: from then on that row says who
    // writes the conversation (a checkout sees a live runtime), so there is no gap to race.
    const deadline = Date.now() + HANDOFF_MS;
    while (Date.now() < deadline && isAlive(pid) && !currentProcesses(svc.db, id, 'runtime').some((p) => p.pid === pid))
      await sleep(RETRY_MS);
    return { delivered: 'resumed', pid, nativeSessionId: s.nativeSessionId, logOffset };
  } catch (e) {
    // Nothing ran: the agent is as it was before the message.
    updateSession(svc.db, id, { status: previous as SessionRow['status'], endedAt: s.endedAt ?? Date.now() });
    throw e;
  } finally {
    releaseConversation(svc.db, id, RESUME_PURPOSE);
  }
}

/** The messages queued behind a running agent's turn, which an interrupt would drop ([] when none or unknown). */
export async function queuedMessages(svc: AgentServices, sessionId: string): Promise<string[]> {
  const s = getSession(svc.db, sessionId);
  const zone = s ? zoneOf(s) : null;
  if (s && zone) {
    const ask = { op: 'interrupt' as const, sid: s.id, peek: true };
    const r = await askZone<{ dropped?: string[] }>(zoneAccess(svc, zone.name), ask).catch(() => null);
    return r?.dropped ?? [];
  }
  if (!s || !liveRuntime(svc.db, s.id)) return [];
  try {
    return (await askRuntime(svc, s, 'interrupt', { sessionIds: [s.id], peek: true })).dropped ?? [];
  } catch {
    return [];
  }
}

/**
 * Interrupt the agent's current turn; what it drops: the messages queued behind the turn.
 * E_AGENT_NOT_RUNNING when no turn runs.
 */
export async function interruptAgent(svc: AgentServices, sessionId: string): Promise<{ dropped: string[] }> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const s = getSession(svc.db, sessionId);
    if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${shortId(sessionId)} no longer exists`);
    const zone = zoneOf(s);
    if (zone) return askZone<{ dropped: string[] }>(zoneAccess(svc, zone.name), { op: 'interrupt', sid: s.id });
    const notRunning = (): KlaudeError =>
      new KlaudeError('E_AGENT_NOT_RUNNING', `agent ${shortId(s.id)} is not running (${s.status})`, {
        hint: isTerminal(s.status) ? `\`klaude message ${shortId(s.id)} "…"\` resumes it` : undefined,
      });
    if (s.status === 'queued') {
      if (cancelQueued(svc.db, s.id)) {
        if (s.logPath)
          appendSessionEvent(s.logPath, {
            type: 'done',
            status: 'cancelled',
            error: 'interrupted while queued: it never ran',
          });
        return { dropped: [] };
      }
      continue; // it left the queue meanwhile: interrupt what it became
    }
    if (s.status === 'waiting' && askedRecovery(svc.db, s.id) && !liveRuntime(svc.db, s.id)) {
      // Died mid-turn and waiting for the person (`agents.recover: ask`): declined, it ends interrupted.
      endTurn(svc.db, s.id);
      updateSession(svc.db, s.id, { status: 'interrupted', endedAt: Date.now() });
      if (s.logPath)
        appendSessionEvent(s.logPath, {
          type: 'done',
          status: 'interrupted',
          error: 'not resumed after its run died mid-turn',
        });
      return { dropped: [] };
    }
    const fgRow = inForeground(svc.db, s.id);
    if (fgRow) {
      throw new KlaudeError(
        'E_SESSION_BUSY',
        `${shortId(s.id)} runs in ${describeForeground(fgRow)}: interrupt it there (Esc)`,
      );
    }
    const live = liveRuntime(svc.db, s.id);
    const taker = live ? null : claimedByOther(svc.db, s.id);
    if (taker) {
      // Being recovered or resumed elsewhere: interrupt the run once its runtime is up.
      if (Date.now() > deadline)
        throw new KlaudeError('E_SESSION_BUSY', `agent ${shortId(s.id)} is being started by ${taker}`, {
          hint: `try again in a moment: once its runtime is up, \`klaude interrupt ${shortId(s.id)}\` stops its turn`,
        });
      await sleep(RETRY_MS);
      continue;
    }
    if (!live) {
      // Started a moment ago: its runtime may not have registered yet.
      if (s.status === 'pending' || (s.status === 'running' && Date.now() < deadline && !reapOrRecover(svc, s.id))) {
        if (Date.now() > deadline) throw notRunning();
        await sleep(RETRY_MS);
        continue;
      }
      throw notRunning();
    }
    try {
      const r = await askRuntime(svc, s, 'interrupt', { sessionIds: [s.id] });
      return { dropped: r.dropped ?? [] };
    } catch (e) {
      if (isKlaudeError(e) && e.code === 'E_AGENT_NOT_RUNNING') throw notRunning();
      if (!unreachable(e) || Date.now() > deadline) throw notRunning();
      await sleep(RETRY_MS);
    }
  }
}

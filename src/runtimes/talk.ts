/**
 * Talking to running agents: deliver a message (to the live runtime's socket, or by resuming the
 * agent's native session in a new runtime when none runs) and interrupt the current turn.
 * Used by `klaude message` / `klaude interrupt` directly and by the supervisor's handlers.
 */
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import { controlRequest } from '../control/client.js';
import type { Action, PayloadOf, ResultOf } from '../control/protocol.js';
import { tx } from '../db/client.js';
import { getProject } from '../db/repos/projects.js';
import { getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import { sleep } from '../lib/process.js';
import type { AgentServices } from './context.js';
import { spawnRuntime } from './launch.js';
import { describeForeground, inForeground, liveRuntime, reapIfDead } from './liveness.js';
import { agentSocketPath } from './paths.js';
import { launchMetadata } from './start.js';
import { assertWorktreeThere } from './worktree.js';

/** How long to keep trying a runtime that is starting up or finishing its run. */
export const TRANSITION_WAIT_MS = 15_000;
const RETRY_MS = 50;

const unreachable = (e: unknown): boolean =>
  isKlaudeError(e) && (e.code === 'E_NO_SUPERVISOR' || e.code === 'E_IO' || e.code === 'E_AGENT_NOT_RUNNING');

/** One request to the agent's runtime socket. */
export function askRuntime<A extends Action>(svc: AgentServices, s: SessionRow, action: A, payload: PayloadOf<A>): Promise<ResultOf<A>> {
  return controlRequest(agentSocketPath(svc.home, s.projectId, s.id, svc.env), action, payload, { timeoutMs: 5000 });
}

export interface Delivery {
  delivered: 'stdin' | 'queued' | 'resumed';
  pid: number;
  /** The native session the agent continues (resumed deliveries). */
  nativeSessionId: string | null;
}

/**
 * Give `prompt` to the agent: queued for its running runtime, or — when its runtime has stopped —
 * a new runtime resumes its native session with the prompt as the next message.
 */
export async function deliverMessage(svc: AgentServices, sessionId: string, prompt: string): Promise<Delivery> {
  if (prompt.trim() === '') throw new KlaudeError('E_USAGE', 'the message is empty');
  const deadline = Date.now() + TRANSITION_WAIT_MS;
  for (;;) {
    const s = getSession(svc.db, sessionId);
    if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${sessionId} no longer exists`);
    const fg = inForeground(svc.db, s.id);
    if (fg) {
      throw new KlaudeError('E_SESSION_BUSY', `${shortId(s.id)} is open in ${describeForeground(fg)}`, {
        hint: fg.kind === 'pty' ? `type to it there (\`klaude talk ${shortId(s.id)}\`), or exit that claude first` : 'type to it there, or exit that claude first',
      });
    }
    const live = liveRuntime(svc.db, s.id);
    if (live) {
      try {
        const r = await askRuntime(svc, s, 'message', { sessionId: s.id, prompt });
        return { delivered: r.delivered === 'queued' ? 'queued' : 'stdin', pid: r.pid ?? live.pid, nativeSessionId: s.nativeSessionId };
      } catch (e) {
        if (!unreachable(e)) throw e;
      }
    } else {
      reapIfDead(svc.db, s.id);
      if (claimForResume(svc, s.id)) return resume(svc, s.id, prompt);
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
 * Atomically take a stopped session for a resume (status → running), so two messages never start
 * two runtimes. Stopped: a terminal status, or a TUI session nobody has in the foreground.
 */
function claimForResume(svc: AgentServices, id: string): boolean {
  return tx(svc.db, () => {
    const s = getSession(svc.db, id);
    if (!s) return false;
    const idleTui = s.type === 'tui' && s.status !== 'pending' && !inForeground(svc.db, id) && !liveRuntime(svc.db, id);
    if (!isTerminal(s.status) && !idleTui) return false;
    updateSession(svc.db, id, { status: 'running', endedAt: null });
    return true;
  });
}

async function resume(svc: AgentServices, id: string, prompt: string): Promise<Delivery> {
  const s = getSession(svc.db, id)!;
  const cwd = launchMetadata(s)?.cwd ?? getProject(svc.db, s.projectId)?.rootPath ?? process.cwd();
  assertWorktreeThere(s.worktreePath, cwd);
  try {
    const pid = await spawnRuntime({
      home: svc.home,
      sessionId: s.id,
      request: { prompt, source: 'message' },
      inv: svc.inv,
      env: { ...svc.env, KLAUDE_PROJECT_HASH: s.projectId },
      cwd,
    });
    return { delivered: 'resumed', pid, nativeSessionId: s.nativeSessionId };
  } catch (e) {
    updateSession(svc.db, id, { status: 'failed', endedAt: Date.now() });
    throw e;
  }
}

/** Interrupt the agent's current turn. E_AGENT_NOT_RUNNING when no turn runs. */
export async function interruptAgent(svc: AgentServices, sessionId: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const s = getSession(svc.db, sessionId);
    if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${sessionId} no longer exists`);
    const notRunning = (): KlaudeError =>
      new KlaudeError('E_AGENT_NOT_RUNNING', `agent ${shortId(s.id)} is not running (${s.status})`, {
        hint: isTerminal(s.status) ? `\`klaude message ${shortId(s.id)} "…"\` resumes it` : undefined,
      });
    const fgRow = inForeground(svc.db, s.id);
    if (fgRow) {
      throw new KlaudeError('E_SESSION_BUSY', `${shortId(s.id)} runs in ${describeForeground(fgRow)}: interrupt it there (Esc)`);
    }
    const live = liveRuntime(svc.db, s.id);
    if (!live) {
      // Started a moment ago: its runtime may not have registered yet.
      if (s.status === 'pending' || (s.status === 'running' && Date.now() < deadline && !reapIfDead(svc.db, s.id))) {
        if (Date.now() > deadline) throw notRunning();
        await sleep(RETRY_MS);
        continue;
      }
      throw notRunning();
    }
    try {
      await askRuntime(svc, s, 'interrupt', { sessionIds: [s.id] });
      return;
    } catch (e) {
      if (isKlaudeError(e) && e.code === 'E_AGENT_NOT_RUNNING') throw notRunning();
      if (!unreachable(e) || Date.now() > deadline) throw notRunning();
      await sleep(RETRY_MS);
    }
  }
}

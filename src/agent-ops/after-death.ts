/**
 * `klaude __reap <sessionId>`: what happens the moment an agent runtime dies without ending its run
 * (SIGKILL, OOM, a crash past its handlers), with no dashboard open and no command run. The
 * runtime's death notice (ownership/death-notice.ts) starts it with the runtime's own environment.
 * A run cut off mid-turn that `agents.recover` resumes is recovered once the dead runtime's CLI is
 * gone (one writer per conversation); any other run is recorded at once (interrupted, and why)
 * and its slot goes to the queue. Then the project is reconciled. Every step is one any later look
 * would also take, so a reap that races a `klaude sessions` or a `wait` does the work once.
 *
 * The notice runs once the kernel has closed the runtime's end of its pipe, which it does as the
 * process dies: that is the proof of death, and the reaper records it before anything else. It
 * never asks the pid table whether that runtime still lives — a dead process stays there as a
 * zombie until it is reaped, which a lazily reaping init does seconds later, a container without
 * an init never; and a process finishing exit() is listed as running for a moment.
 */
import { loadConfig } from '../config/config.js';
import { klaudeHome, logFilePath } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { createFileLogger } from '../lib/logger.js';
import { isTerminal } from '../core/status.js';
import { openDb, tx, type Db } from '../db/client.js';
import { cancelPendingApprovals } from '../db/repos/approvals.js';
import { getProject } from '../db/repos/projects.js';
import { currentProcesses, endProcess } from '../db/repos/processes.js';
import { getCheckpoint } from '../db/repos/checkpoints.js';
import { getSession, setUndelivered, undeliveredOf, updateSession } from '../db/repos/sessions.js';
import { currentInvocation } from '../claude/shim.js';
import { sleep } from '../lib/process.js';
import { appendSessionEvent } from '../logs/writer.js';
import { endOrphanedClis, liveRuntime } from '../ownership/liveness.js';
import { claimedByOther } from '../ownership/conversation-claim.js';
import { reconcile } from '../ownership/reconcile.js';
import { closeAgentServices, type AgentServices } from './context.js';
import { recoverAfterReconcile } from './recover.js';
import { startQueued } from './queue.js';

export const REAP_COMMAND = '__reap';
/** How long the dead runtime's CLI is given to go (its watchdog: SIGTERM, SIGKILL after 3 s). */
const ORPHAN_WAIT_MS = 5_000;

/** The runtime that died, as its notice was armed with: its pid and start time (null: unknown). */
export interface DeadRuntime {
  pid: number;
  start: number | null;
}

/** `__reap <session> <pid> <start|->`: the arguments the runtime arms its notice with. */
export function reapArgs(sessionId: string, self: DeadRuntime): string[] {
  return [REAP_COMMAND, sessionId, String(self.pid), self.start === null ? '-' : String(self.start)];
}

/** The dead runtime named by `__reap`'s arguments after the session id; null when none is named. */
export function parseDeadRuntime(args: readonly string[]): DeadRuntime | null {
  const pid = Number(args[0]);
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const start = args[1] === undefined || args[1] === '-' ? null : Number(args[1]);
  return { pid, start: start !== null && Number.isFinite(start) ? start : null };
}

export async function reapAfterDeath(
  sessionId: string,
  env: NodeJS.ProcessEnv,
  dead: DeadRuntime | null = null,
): Promise<number> {
  const home = klaudeHome(env);
  const log = createFileLogger(logFilePath(home), 'reap', env).child(shortId(sessionId));
  const db = openDb(home);
  const s = getSession(db, sessionId);
  const root = s ? getProject(db, s.projectId)?.rootPath : undefined;
  if (!s || !root) {
    db.close();
    return 0;
  }
  const svc: AgentServices = {
    home,
    config: loadConfig(home).config,
    db,
    projectRoot: root,
    projectHash: s.projectId,
    env,
    inv: currentInvocation(),
    instanceId: null,
  };
  try {
    if (dead) recordDeath(db, s.id, dead);
    if (liveRuntime(db, s.id)) return 0; // another runtime has the session already
    const runtimePid = dead?.pid ?? currentProcesses(db, s.id, 'runtime')[0]?.pid;
    log.info('runtime died', { runtimePid });
    // Nobody holds its requests any more (a recovered run asks again).
    cancelPendingApprovals(db, s.id, 'its runtime died');
    if (recoverable(svc, s.id)) {
      // One writer: the dead runtime's CLI is gone before recovery resumes the conversation.
      await orphansGone(db, s.id);
      await recoverAfterReconcile(svc, [s.id]);
    } else {
      // Recorded at once, its slot to the queue; its CLI is being ended meanwhile (its watchdog).
      endRun(db, s.id, runtimePid);
      await startQueued(svc);
      await orphansGone(db, s.id);
    }
    const { sessionsEnded } = reconcile(db, { projectId: s.projectId });
    if (sessionsEnded.length) await recoverAfterReconcile(svc, sessionsEnded);
    log.info('reaped', { status: getSession(db, s.id)?.status });
    return 0;
  } finally {
    await closeAgentServices(svc);
  }
}

/** The notified runtime's rows end now (LOST): the kernel closed its files, so it has died. */
function recordDeath(db: Db, sessionId: string, dead: DeadRuntime): void {
  for (const p of currentProcesses(db, sessionId, 'runtime')) {
    const same = p.pid === dead.pid && (p.pidStart === null || dead.start === null || p.pidStart === dead.start);
    if (same) endProcess(db, p.id, { exitCode: null, signal: 'LOST' });
  }
}

async function orphansGone(db: Db, sessionId: string): Promise<void> {
  const deadline = Date.now() + ORPHAN_WAIT_MS;
  while (endOrphanedClis(db, sessionId) && Date.now() < deadline) await sleep(50);
}

/** Recovery would resume it: `agents.recover` is not off and it died mid-turn, not yet recovered. */
function recoverable(svc: AgentServices, sessionId: string): boolean {
  const cp = getCheckpoint(svc.db, sessionId);
  return svc.config['agents.recover'] !== 'off' && !!cp?.inTurn && cp.recoveredTurn !== cp.turn;
}

/** A run ended by its runtime's death and not recovered: its rows, its status and why, its log. */
function endRun(db: Db, sessionId: string, runtimePid: number | undefined): void {
  const died = `its runtime${runtimePid ? ` (pid ${runtimePid})` : ''} died before the run ended (killed or crashed)`;
  let error = died;
  const ended = tx(db, () => {
    const s = getSession(db, sessionId);
    // Taken over meanwhile (a resume, a recovery elsewhere — which holds the conversation until its
    // runtime has recorded itself): that run is not ours to end.
    if (!s || isTerminal(s.status) || liveRuntime(db, sessionId) || claimedByOther(db, sessionId)) return undefined;
    const left = s ? undeliveredOf(s) : [];
    if (left.length) {
      error = `${died}; ${left.length} message(s) sent during its turn were not delivered: ${left.map((t) => JSON.stringify(t.length > 60 ? `${t.slice(0, 59)}…` : t)).join(', ')} (send again with klaude message)`;
      setUndelivered(db, sessionId, []);
    }
    for (const p of currentProcesses(db, sessionId, 'runtime'))
      endProcess(db, p.id, { exitCode: null, signal: 'LOST' });
    return updateSession(db, sessionId, { status: 'interrupted', endedAt: Date.now(), activity: null, error });
  });
  if (ended?.logPath) {
    try {
      appendSessionEvent(ended.logPath, { type: 'done', status: 'interrupted', error });
    } catch {
      /* the row says it */
    }
  }
}

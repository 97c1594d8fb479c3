/**
 * `klaude __reap <sessionId>`: what happens the moment an agent runtime dies without ending its run
 * (SIGKILL, OOM, a crash past its handlers), with no dashboard open and no command run. The
 * runtime's death notice (ownership/death-notice.ts) starts it with the runtime's own environment.
 * It waits for the dead runtime's CLI to be ended by its watchdog, marks what died (reconcile),
 * recovers a run cut off mid-turn (`agents.recover`), starts the queue's next agents, and records
 * why a run that is not recovered ended. Every step is one any later look would also take, so a
 * reap that races a `klaude sessions` or a `wait` does the work once.
 */
import { loadConfig } from '../config/config.js';
import { klaudeHome, logFilePath } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { createFileLogger } from '../lib/logger.js';
import { isTerminal } from '../core/status.js';
import { openDb, type Db } from '../db/client.js';
import { cancelPendingApprovals } from '../db/repos/approvals.js';
import { getProject } from '../db/repos/projects.js';
import { currentProcesses } from '../db/repos/processes.js';
import { getSession, updateSession } from '../db/repos/sessions.js';
import { currentInvocation } from '../claude/shim.js';
import { sleep } from '../lib/process.js';
import { appendSessionEvent } from '../logs/writer.js';
import { endOrphanedClis, liveRuntime } from '../ownership/liveness.js';
import { reconcile } from '../ownership/reconcile.js';
import { closeAgentServices, type AgentServices } from './context.js';
import { recoverAfterReconcile } from './recover.js';

export const REAP_COMMAND = '__reap';
/** How long the dead runtime's CLI is given to go (its watchdog: SIGTERM, SIGKILL after 3 s). */
const ORPHAN_WAIT_MS = 5_000;

export async function reapAfterDeath(sessionId: string, env: NodeJS.ProcessEnv): Promise<number> {
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
    if (liveRuntime(db, s.id)) return 0; // another runtime has the session already
    const runtimePid = currentProcesses(db, s.id, 'runtime')[0]?.pid;
    log.info('runtime died', { runtimePid });
    await orphansGone(db, s.id);
    // Nobody holds its requests any more (a recovered run asks again).
    cancelPendingApprovals(db, s.id, 'its runtime died');
    const { sessionsEnded } = reconcile(db, { projectId: s.projectId });
    log.info('reconciled', { sessionsEnded });
    await recoverAfterReconcile(svc, [...sessionsEnded, s.id]);
    recordWhy(db, s.id, runtimePid);
    log.info('reaped', { status: getSession(db, s.id)?.status });
    return 0;
  } finally {
    await closeAgentServices(svc);
  }
}

async function orphansGone(db: Db, sessionId: string): Promise<void> {
  const deadline = Date.now() + ORPHAN_WAIT_MS;
  while (endOrphanedClis(db, sessionId) && Date.now() < deadline) await sleep(50);
}

/** A run ended by its runtime's death and not recovered: say so in its row and its log. */
function recordWhy(db: Db, sessionId: string, runtimePid: number | undefined): void {
  const s = getSession(db, sessionId);
  if (!s || s.status !== 'interrupted' || s.error || liveRuntime(db, s.id)) return;
  const error = `its runtime${runtimePid ? ` (pid ${runtimePid})` : ''} died before the run ended (killed or crashed)`;
  updateSession(db, s.id, { error });
  if (s.logPath && isTerminal(s.status)) {
    try {
      appendSessionEvent(s.logPath, { type: 'done', status: 'interrupted', error });
    } catch {
      /* the row says it */
    }
  }
}

/**
 * `klaude __runtime <sessionId>`: the entry of the detached agent runtime process (started by
 * agent-ops/launch.ts). Loads the session, its launch metadata and adapter, wires signals, and runs
 * AgentRuntime (agent-runtime.ts) until the agent's work is done.
 */
import { closeSync, openSync } from 'node:fs';
import { loadConfig } from '../config/config.js';
import { klaudeHome, logFilePath, sessionLogPath } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { openDb } from '../db/client.js';
import { getProject } from '../db/repos/projects.js';
import { getSession, updateSession } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { createFileLogger } from '../lib/logger.js';
import { openSessionLog } from '../logs/writer.js';
import { getAdapter } from '../adapters/registry.js';
import { plainAgentType } from '../agent-types/launch-settings.js';
import { readRuntimeRequest } from '../agent-ops/launch.js';
import { AgentRuntime } from './agent-runtime.js';
import { currentInvocation } from '../claude/shim.js';
import { reapArgs } from '../agent-ops/after-death.js';
import { processStartTime } from '../lib/process.js';
import { onOwnDeath, type DeathNotice } from '../ownership/death-notice.js';
import { STOP_GRACE_MS } from './run-end.js';
import { launchMcp, launchMetadata, type AgentLaunchMetadata } from '../agent-types/launch-settings.js';

/** `klaude __runtime <sessionId>` (hidden): runs until the agent's work is done, then exits. */
export async function runtimeMain(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const sessionId = argv[0];
  if (!sessionId)
    throw new KlaudeError('E_USAGE', 'usage: klaude __runtime <sessionId> (internal; request JSON on stdin)');
  const home = klaudeHome(env);
  // Armed first: from here on, a death of this process by any signal is noticed at once.
  const notice = armDeathNotice(home, sessionId, env);
  const log = createFileLogger(logFilePath(home), 'runtime', env).child(shortId(sessionId));
  const request = await readRuntimeRequest();
  const { config } = loadConfig(home);
  const db = openDb(home);
  const session = getSession(db, sessionId);
  if (!session) {
    log.error('no such session');
    db.close();
    return 1;
  }
  const root = getProject(db, session.projectId)?.rootPath ?? process.cwd();
  const recorded: AgentLaunchMetadata = launchMetadata(session) ?? {
    cwd: root,
    projectRoot: root,
    agent: (({ type: _t, runtime: _r, model: _m, ...rest }) => rest)(plainAgentType(session.type)),
  };
  const meta = launchMcp(recorded, env, session.runtime);
  const adapter = await getAdapter(session.runtime);
  const logPath = session.logPath ?? sessionLogPath(home, session.projectId, session.id, config['logs.dir']);
  if (!session.logPath) updateSession(db, session.id, { logPath });
  const writer = openSessionLog(logPath);
  const rt = new AgentRuntime({ home, config, db, env, log, session, meta, adapter, writer });

  const stop = (reason: string): Promise<void> =>
    rt.stop(reason).catch((err: unknown) => log.error('runtime stop failed', { err, reason }));
  process.on('SIGTERM', () => void stop('SIGTERM')); // handled: stop() catches and logs
  process.on('SIGHUP', () => void stop('SIGHUP'));
  process.on('SIGINT', () => {
    try {
      rt.onInterrupt();
    } catch {
      /* not in a turn */
    }
  });
  const crash = (err: unknown): void => {
    log.error('runtime crashed', { err });
    try {
      void stop('crash'); // the timer below exits whatever stop() does
    } finally {
      setTimeout(() => process.exit(70), STOP_GRACE_MS + 500).unref();
    }
  };
  process.on('uncaughtException', crash);
  process.on('unhandledRejection', crash);
  const code = await rt.run(request);
  log.info('runtime exiting', { code });
  notice.dispose();
  process.exit(code);
}

/** `klaude __reap <session>` (agent-ops/after-death.ts) runs if this process dies before its run is over. */
function armDeathNotice(home: string, sessionId: string, env: NodeJS.ProcessEnv): DeathNotice {
  let stderrFd: number | undefined;
  try {
    stderrFd = openSync(logFilePath(home), 'a', 0o600);
  } catch {
    /* no log file: the reaper's crash output is lost, nothing else */
  }
  try {
    const inv = currentInvocation();
    const self = { pid: process.pid, start: processStartTime(process.pid) };
    return onOwnDeath([inv.node, inv.cli, ...reapArgs(sessionId, self)], { cwd: home, env, stderrFd });
  } finally {
    if (stderrFd !== undefined) closeSync(stderrFd);
  }
}

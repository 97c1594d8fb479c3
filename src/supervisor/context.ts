import { socketPath } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import { openDb, type Db } from '../db/client.js';
import { ensureProject } from '../db/repos/projects.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import type { Logger } from '../lib/logger.js';
import type { ClaudePassthrough } from './foreground-args.js';
import { reconcile, type ReconcileResult } from '../ownership/reconcile.js';
import { currentInvocation, ensureShim } from '../claude/shim.js';
import { recoverAfterReconcile } from '../agent-ops/recover.js';

/** Everything a running supervisor knows about itself; built once at start-up. */
export interface SupervisorContext {
  home: string;
  config: Config;
  cwd: string;
  projectRoot: string;
  projectHash: string;
  db: Db;
  log: Logger;
  instanceId: string;
  socketPath: string;
  shimDir: string;
  inv: KlaudeInvocation;
  claudeBin: string;
  passthrough: ClaudePassthrough;
  /** The environment klaude was started with; children get it plus KLAUDE_*. */
  env: NodeJS.ProcessEnv;
}

export interface OpenContextInput {
  home: string;
  config: Config;
  cwd: string;
  projectRoot: string;
  projectHash: string;
  log: Logger;
  instanceId: string;
  claudeBin: string;
  passthrough: ClaudePassthrough;
  env: NodeJS.ProcessEnv;
}

/**
 * What every supervisor (`klaude` and `klaude ui`) does before registering itself: open the
 * DB, make sure the project row exists, mark rows of dead processes, and put the klaude shim
 * where its children's PATH will find it.
 */
export function openSupervisorContext(i: OpenContextInput): { ctx: SupervisorContext; recovered: ReconcileResult } {
  const db = openDb(i.home);
  ensureProject(db, { hash: i.projectHash, rootPath: i.projectRoot });
  const recovered = reconcile(db, { projectId: i.projectHash });
  const inv = currentInvocation();
  const ctx: SupervisorContext = {
    ...i,
    db,
    socketPath: socketPath(i.home, i.projectHash, i.instanceId, i.env),
    shimDir: ensureShim(i.home, inv),
    inv,
  };
  // Agents cut off mid-turn are resumed (`agents.recover`); dead runs' slots go to the run queue.
  if (recovered.sessionsEnded.length || recovered.lostProcesses) {
    const svc = {
      home: i.home,
      config: i.config,
      db,
      projectRoot: i.projectRoot,
      projectHash: i.projectHash,
      env: i.env,
      inv,
      instanceId: null,
    };
    recoverAfterReconcile(svc, recovered.sessionsEnded).catch((err: unknown) =>
      i.log.warn('recovering agents after reconcile failed', { err }),
    );
  }
  return { ctx, recovered };
}

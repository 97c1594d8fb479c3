/**
 * What the agent services (start, message, interrupt, wait) need, built the same way in a
 * short-lived command and in the supervisor: home, config, DB, project, environment, and the
 * klaude invocation that runtimes are started with.
 */
import { realpathSync } from 'node:fs';
import { loadConfig } from '../config/config.js';
import { ensurePrivateDir, klaudeHome, projectHash, projectRoot } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import { openDb, type Db } from '../db/client.js';
import { ensureProject } from '../db/repos/projects.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { currentInvocation } from '../claude/shim.js';
import { kickLiveZones } from '../zone-client/kick.js';

export interface AgentServices {
  home: string;
  config: Config;
  db: Db;
  projectRoot: string;
  projectHash: string;
  /** The caller's environment: runtimes inherit it. */
  env: NodeJS.ProcessEnv;
  /** node + entry script used to start `klaude __runtime <id>`. */
  inv: KlaudeInvocation;
  /** The supervisor instance starting agents (recorded on sessions and processes), if any. */
  instanceId: string | null;
}

/** Services for a command run in `cwd` (opens the DB; the caller closes `db`). */
export function openAgentServices(o: { env: NodeJS.ProcessEnv; cwd: string; inv?: KlaudeInvocation }): AgentServices {
  const home = ensurePrivateDir(klaudeHome(o.env));
  const { config } = loadConfig(home);
  const root = projectRoot(realpathSync(o.cwd));
  const hash = projectHash(root);
  const db = openDb(home);
  try {
    ensureProject(db, { hash, rootPath: root });
  } catch (e) {
    db.close();
    throw e;
  }
  const svc: AgentServices = {
    home,
    config,
    db,
    projectRoot: root,
    projectHash: hash,
    env: o.env,
    inv: o.inv ?? currentInvocation(),
    instanceId: null,
  };
  // Someone is looking: the links of zones with live agents here try now (closeAgentServices waits).
  const kicked = kickLiveZones(svc);
  if (kicked) trackBackground(db, kicked);
  return svc;
}

/**
 * Work an agent service started in the background that still uses the DB (a recovery handing the
 * conversation to its runtime): a command awaits it before closing the DB (closeAgentServices), so
 * nothing outlives the handle it writes through.
 */
const background = new WeakMap<Db, Set<Promise<unknown>>>();

export function trackBackground(db: Db, work: Promise<unknown>): void {
  let set = background.get(db);
  if (!set) background.set(db, (set = new Set()));
  const settled = work.catch(() => undefined);
  set.add(settled);
  void settled.then(() => set.delete(settled));
}

/** Wait for the background work still using `db` (started so far). */
export async function backgroundSettled(db: Db): Promise<void> {
  for (let set = background.get(db); set && set.size > 0; set = background.get(db)) await Promise.all(set);
}

/** Close the services' DB once their background work is done. */
export async function closeAgentServices(svc: Pick<AgentServices, 'db'>): Promise<void> {
  await backgroundSettled(svc.db);
  svc.db.close();
}

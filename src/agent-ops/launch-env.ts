/**
 * The environment an agent's runtime is launched with, kept per session so that whoever launches
 * it later (the queue, when some other run frees a slot; recovery, after its runtime died)
 * launches it as its own starter would have, not with the environment of the process that
 * happens to do it (another project's CLAUDE_CONFIG_DIR, API credentials, PATH, KLAUDE_SOCKET).
 *
 * One 0600 file per session, `<home>/launch/<session>.json`: the whole environment (what a
 * launch passes on is the whole environment; picking keys would miss the next credential
 * variable) and the klaude invocation. Written when `start` queues an agent and at every runtime
 * launch; deleted when no run will be launched for the session again (forgetEndedLaunchEnvs).
 * A file, not the session's metadata: it must outlive the run's start for crash recovery, and
 * credentials kept while a run lasts do not belong in the DB every listing reads. Not under the
 * run dir: where that is can depend on the caller's environment (runDir).
 */
import { SCOPE_ENV } from '../sandbox/channel-paths.js';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../config/paths.js';
import type { Config } from '../config/schema.js';
import type { HasSqlite } from '../db/connection.js';
import { launchesOver } from '../db/repos/queue.js';
import type { KlaudeInvocation } from '../claude/shim.js';

/** What a session's runtime is launched with. */
export interface LaunchSpec {
  env: NodeJS.ProcessEnv;
  inv: KlaudeInvocation;
}

const FILE_SUFFIX = '.json';

export function launchEnvDir(home: string): string {
  return path.join(home, 'launch');
}

export function launchEnvPath(home: string, sessionId: string): string {
  return path.join(launchEnvDir(home), `${sessionId}${FILE_SUFFIX}`);
}

/** Keep the launch of `sessionId` (replacing an earlier one). Throws when it cannot be written. */
export function keepLaunchEnv(home: string, sessionId: string, spec: LaunchSpec): void {
  ensurePrivateDir(launchEnvDir(home));
  const file = launchEnvPath(home, sessionId);
  const tmp = `${file}.${process.pid}.tmp`;
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(spec.env)) if (typeof v === 'string') env[k] = v;
  delete env[SCOPE_ENV]; // (launch.ts says why)
  writeFileSync(tmp, JSON.stringify({ v: 1, env, inv: spec.inv }), { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * The kept launch of `sessionId`, or null when there is none (or it cannot be read); its klaude
 * is null when that one is no longer installed there.
 */
export function readLaunchEnv(
  home: string,
  sessionId: string,
): { env: NodeJS.ProcessEnv; inv: KlaudeInvocation | null } | null {
  try {
    const j = JSON.parse(readFileSync(launchEnvPath(home, sessionId), 'utf8')) as Partial<LaunchSpec> & { v?: number };
    if (j.v !== 1 || typeof j.env !== 'object' || j.env === null) return null;
    const inv = j.inv;
    const usable =
      !!inv &&
      typeof inv.node === 'string' &&
      typeof inv.cli === 'string' &&
      existsSync(inv.node) &&
      existsSync(inv.cli);
    return { env: j.env, inv: usable ? inv : null };
  } catch {
    return null;
  }
}

export function forgetLaunchEnv(home: string, sessionId: string): void {
  rmSync(launchEnvPath(home, sessionId), { force: true });
}

/**
 * The environment and klaude a session's runtime should be (re)launched with: the kept launch of
 * the session when there is one, else the caller's (`svc`), made the session's where it names a
 * place of the caller's own (another project's supervisor socket and instance). Either way
 * `KLAUDE_PROJECT_HASH` is the session's project.
 */
export function launchFor(
  svc: { home: string; env: NodeJS.ProcessEnv; inv: KlaudeInvocation },
  s: { id: string; projectId: string },
): LaunchSpec & { kept: boolean } {
  const kept = readLaunchEnv(svc.home, s.id);
  if (kept) {
    return { env: { ...kept.env, KLAUDE_PROJECT_HASH: s.projectId }, inv: kept.inv ?? svc.inv, kept: true };
  }
  const env: NodeJS.ProcessEnv = { ...svc.env, KLAUDE_PROJECT_HASH: s.projectId };
  if (svc.env.KLAUDE_PROJECT_HASH !== s.projectId) {
    delete env.KLAUDE_SOCKET;
    delete env.KLAUDE_INSTANCE_ID;
  }
  return { env, inv: svc.inv, kept: false };
}

/**
 * Delete the kept launches of sessions no run will be launched for again: gone, or ended and not
 * cut off mid-turn (a turn recovery may still resume, unless `agents.recover` is off). Called
 * whenever a run ends (startQueued), so credentials stay on disk only while a run may need them.
 * Never throws: what it cannot delete now goes at a later run's end.
 */
export function forgetEndedLaunchEnvs(db: HasSqlite, home: string, config: Config): void {
  try {
    const ids = readdirSync(launchEnvDir(home))
      .filter((f) => f.endsWith(FILE_SUFFIX))
      .map((f) => f.slice(0, -FILE_SUFFIX.length));
    if (ids.length === 0) return;
    for (const id of launchesOver(db, ids, config['agents.recover'] !== 'off')) forgetLaunchEnv(home, id);
  } catch {
    /* no launch dir yet, or the DB is busy: the next run's end tries again */
  }
}

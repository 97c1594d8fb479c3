/**
 * `klaude doctor`'s checks in the order a person reads them: klaude's own install, the programs it
 * stands on, whether Claude Code's hooks reach klaude, its files, its processes. Each is one CheckResult; nothing here
 * prints or changes anything (the probe's claude runs in a temporary home it removes).
 */
import type { KlaudeInvocation } from '../claude/shim.js';
import { klaudeHome, projectRoot } from '../config/paths.js';
import type { CheckResult } from './check.js';
import { checkClaude, checkConfig, checkNode } from './claude-checks.js';
import { probeHooks } from './hooks-probe.js';
import { checkInstall } from './install-checks.js';
import { checkLeftovers, checkPtyServer, checkWatchdogs } from './process-checks.js';
import { checkDatabase, checkHome, checkRunDir } from './storage-checks.js';

export interface DoctorInput {
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** The klaude whose hook entry the probe runs (commands: currentInvocation()). */
  inv: KlaudeInvocation;
  /** Whose files count as "yours" (process.getuid(); null where there are no uids). */
  uid: number | null;
}

export { type CheckResult } from './check.js';

export async function runDoctor(o: DoctorInput): Promise<CheckResult[]> {
  const home = klaudeHome(o.env);
  const root = projectRoot(o.cwd);
  const config = checkConfig(home);
  const claude = checkClaude(config.config, o.env);
  const results: CheckResult[] = [await checkInstall(), checkNode(), config.result, claude.result];
  results.push(await probeHooks({ binary: claude.binary, inv: o.inv, env: o.env, root }));
  const db = checkDatabase(home);
  results.push(...db, checkHome(home, o.uid), checkRunDir(home, o.env, o.uid));
  const dbCurrent = db.length === 2 && db.every((r) => r.level === 'ok');
  results.push(await checkPtyServer(home, o.env), checkLeftovers(home, dbCurrent), checkWatchdogs(home, o.uid));
  return results;
}

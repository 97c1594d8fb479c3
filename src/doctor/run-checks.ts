/**
 * `klaude doctor`'s checks in the order a person reads them: klaude's own install, the programs it
 * stands on, whether Claude Code's hooks reach klaude, its files, its processes. Each is one CheckResult; nothing here
 * prints or changes anything (the probe's claude runs in a temporary home it removes).
 */
import type { KlaudeInvocation } from '../claude/shim.js';
import { klaudeHome, projectRoot } from '../config/paths.js';
import { warned, type CheckResult } from './check.js';
import { checkSqliteModule } from './sqlite-check.js';
import { checkClaude, checkConfig, checkNode } from './claude-checks.js';
import { probeHooks } from './hooks-probe.js';
import { checkSandbox } from './sandbox-check.js';
import { checkInstall } from './install-checks.js';
import { checkLeftovers, checkPtyServer, checkWatchdogs } from './process-checks.js';
import { checkInitReaping, checkSocketPeers } from './platform-checks.js';
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
  const sqlite = checkSqliteModule();
  const config = checkConfig(home);
  const claude = checkClaude(config.config, o.env);
  const results: CheckResult[] = [
    await checkInstall(),
    checkNode(),
    sqlite.result,
    config.result,
    claude.result,
    checkSandbox(config.config, o.env),
  ];
  // Without the SQLite module nothing can be recorded or read: those checks say so, and no more.
  const unread = (check: string, what: string): CheckResult =>
    warned(
      check,
      `not checked: ${what}, and klaude's SQLite module does not load (see above)`,
      'fix the sqlite module line first',
    );
  results.push(
    sqlite.loads
      ? await probeHooks({ binary: claude.binary, inv: o.inv, env: o.env, root })
      : unread('hooks', "klaude's hooks record into the database"),
  );
  const db = sqlite.loads ? checkDatabase(home) : [unread('database', 'the database is read through it')];
  results.push(...db, checkHome(home, o.uid), checkRunDir(home, o.env, o.uid));
  const dbCurrent = db.length === 2 && db.every((r) => r.level === 'ok');
  const leftovers = sqlite.loads
    ? checkLeftovers(home, dbCurrent)
    : unread('leftover processes', 'the processes are recorded in the database');
  results.push(await checkPtyServer(home, o.env), leftovers, checkWatchdogs(home, o.uid));
  results.push(await checkInitReaping(), await checkSocketPeers());
  return results;
}

/**
 * `sqlite module`: whether better-sqlite3's native module loads in this Node, tried in a child
 * node (a damaged file may crash the process that loads it) after the checks that need no loading
 * (db/sqlite-addon.ts: missing, cut short). Broken, it names the module, why, and the fix; the
 * checks that need the database then say they were not done, rather than blaming the database.
 */
import { spawnSync } from 'node:child_process';
import { sqliteFileProblem, sqliteFix, sqliteLoadProblem, sqliteModule, sqliteVersion } from '../db/sqlite-addon.js';
import { failed, passed, type CheckResult } from './check.js';

const NAME = 'sqlite module';
/** The child's load: nothing on success; the error's words (JSON) and exit 3 on failure. */
const PROBE =
  'try { require(process.argv[1]); } catch (e) { process.stdout.write(JSON.stringify({ message: String(e && e.message) })); process.exit(3); }';

export function checkSqliteModule(): { result: CheckResult; loads: boolean } {
  const m = sqliteModule();
  const version = sqliteVersion(m);
  const broken = (why: string): { result: CheckResult; loads: boolean } => ({
    result: failed(
      NAME,
      `better-sqlite3${version ? ` ${version}` : ''} does not load in Node ${process.version}: ${why}`,
      sqliteFix(m),
    ),
    loads: false,
  });
  const problem = sqliteFileProblem(m);
  if (problem) return broken(problem);
  const r = spawnSync(process.execPath, ['-e', PROBE, m.file], { encoding: 'utf8', timeout: 30_000 });
  if (r.signal) return broken(`its native file crashes Node when it is loaded (${r.signal})`);
  if (r.status !== 0) {
    let message = r.stdout || r.stderr || `exit ${r.status}`;
    try {
      message = (JSON.parse(r.stdout) as { message: string }).message;
    } catch {
      // not our JSON: the child's own words
    }
    return broken(sqliteLoadProblem(m, new Error(message)));
  }
  const abi = `NODE_MODULE_VERSION ${process.versions.modules}`;
  return { result: passed(NAME, `better-sqlite3 ${version ?? ''} loads (${abi})`.replace('  ', ' ')), loads: true };
}

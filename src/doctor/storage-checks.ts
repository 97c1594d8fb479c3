/**
 * klaude's files: the database (sound? which migrations?) and the private directories (the home
 * and the run directory of its sockets: owned by this user, 0700, not symlinks; the rule of
 * lib/secure-dir.ts). Nothing is changed: each finding names the command that fixes it.
 */
import { existsSync, lstatSync, readdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { klaudeInstall, reinstallHint } from '../config/install.js';
import { dbPath, runDir } from '../config/paths.js';
import { inspectDbFile, type DbHealth } from '../db/repos/health.js';
import { isKlaudeError } from '../lib/errors.js';
import { failed, passed, warned, type CheckResult } from './check.js';

const upgrade = (): string =>
  `upgrade klaude (${reinstallHint(klaudeInstall(), true)}), or set KLAUDE_HOME to another directory`;

/** The `database` (integrity) and `schema` (migrations) lines. */
export function checkDatabase(home: string): CheckResult[] {
  const file = dbPath(home);
  if (!existsSync(file)) return [passed('database', `no ${file} yet (made on first use)`)];
  let h: DbHealth;
  try {
    h = inspectDbFile(file);
  } catch (e) {
    return [unreadable(file, e)];
  }
  return [integrityOf(file, h), schemaOf(file, h)];
}

/**
 * Why the file could not be read. Only a file SQLite says is not a database (or is corrupt) is to
 * be moved aside; the module failing, a lock held, a permission are no fault of the file's.
 */
function unreadable(file: string, e: unknown): CheckResult {
  if (isKlaudeError(e) && e.code === 'E_SQLITE_MODULE') return failed('database', e.message, e.hint ?? '');
  const code = (e as { code?: unknown }).code;
  const why = `${file} cannot be read: ${(e as Error).message}`;
  if (code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT')
    return failed(
      'database',
      why,
      `move it aside (mv ${file} ${file}.broken; klaude starts a new one, without the old records)`,
    );
  if (code === 'SQLITE_BUSY')
    return failed('database', why, 'another process holds it locked: run klaude doctor again once it is done');
  return failed('database', why, 'check that it is yours and readable (see the home line)');
}

function integrityOf(file: string, h: DbHealth): CheckResult {
  if (h.integrity.length === 1 && h.integrity[0] === 'ok') return passed('database', `${file}: integrity ok`);
  return failed(
    'database',
    `${file} is damaged: ${h.integrity.slice(0, 3).join('; ')}`,
    `recover it: sqlite3 ${file} .recover | sqlite3 ${file}.recovered, then move that in its place (or move the file aside to start afresh)`,
  );
}

function schemaOf(file: string, h: DbHealth): CheckResult {
  if (h.userVersion > h.known)
    return failed(
      'schema',
      `${file} is from a newer klaude: schema ${h.userVersion}, this klaude knows ${h.known}`,
      upgrade(),
    );
  if (h.newestApplied !== null && h.newestApplied > h.newestKnown) {
    const at = new Date(h.newestApplied).toISOString();
    return failed('schema', `${file} has a migration newer than this klaude knows (from ${at})`, upgrade());
  }
  if (h.userVersion < h.known) {
    const n = h.known - h.userVersion;
    return warned(
      'schema',
      `${n} migration(s) not applied yet (schema ${h.userVersion} of ${h.known})`,
      'none: the next klaude command applies them',
    );
  }
  return passed('schema', `schema ${h.userVersion} of ${h.known}`);
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch {
    return null;
  }
}

/** What is wrong with one private path (null: nothing); `mode` is the widest allowed. */
function problemOf(
  p: string,
  st: Stats,
  uid: number | null,
  mode: number,
): { why: string; fix: 'chmod' | 'owner' } | null {
  if (st.isSymbolicLink()) return { why: `${p} is a symlink`, fix: 'owner' };
  if (uid !== null && st.uid !== uid)
    return { why: `${p} belongs to another user (uid ${st.uid}, you are ${uid})`, fix: 'owner' };
  if ((st.mode & 0o777 & ~mode) !== 0)
    return {
      why: `${p} has mode ${(st.mode & 0o777).toString(8).padStart(4, '0')}, not ${mode.toString(8).padStart(4, '0')}`,
      fix: 'chmod',
    };
  return null;
}

/** `home`: KLAUDE_HOME this user's and 0700 (wider: a warning), its database files 0600. */
export function checkHome(home: string, uid: number | null): CheckResult {
  const st = lstatOrNull(home);
  if (!st) return passed('home', `${home} does not exist yet (made 0700 on first use)`);
  const bad = problemOf(home, st, uid, 0o700);
  // A wider home lets others list it, not read what klaude keeps there (files 0600, run dir 0700).
  if (bad?.fix === 'chmod') return warned('home', `${bad.why}: others can list it`, `chmod 700 ${home}`);
  if (bad) return failed('home', bad.why, ownerFix(home, false));
  for (const f of ['sessions.db', 'sessions.db-wal', 'sessions.db-shm']) {
    const file = path.join(home, f);
    const fst = lstatOrNull(file);
    const p = fst && problemOf(file, fst, uid, 0o600);
    if (p) return failed('home', p.why, p.fix === 'chmod' ? `chmod 600 ${file}` : ownerFix(file, false));
  }
  return passed('home', `${home}: yours, 0700`);
}

/**
 * `run directory`: where the sockets live (`<home>/run`, or a `klaude-<uid>-<hash>` directory in
 * the temp dir when the home's path is too long), and its project directories below.
 */
export function checkRunDir(home: string, env: NodeJS.ProcessEnv, uid: number | null): CheckResult {
  const dir = runDir(home, env);
  const outside = !dir.startsWith(home + path.sep);
  const st = lstatOrNull(dir);
  if (!st) return passed('run directory', `${dir} does not exist yet (made 0700 on first use)`);
  const paths = [dir, ...(st.isDirectory() && !st.isSymbolicLink() ? subdirs(dir, 2) : [])];
  for (const p of paths) {
    const pst = lstatOrNull(p);
    const bad = pst && problemOf(p, pst, uid, 0o700);
    if (bad) return failed('run directory', bad.why, bad.fix === 'chmod' ? `chmod 700 ${p}` : ownerFix(dir, outside));
  }
  return passed('run directory', `${dir}: yours, 0700`);
}

/** Directories below `dir`, `depth` levels deep (project dirs and their a/ p/). */
function subdirs(dir: string, depth: number): string[] {
  if (depth === 0) return [];
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const n of names) {
    const p = path.join(dir, n);
    const st = lstatOrNull(p);
    if (st?.isDirectory() || st?.isSymbolicLink()) out.push(p);
    if (st?.isDirectory()) out.push(...subdirs(p, depth - 1));
  }
  return out;
}

function ownerFix(p: string, outside: boolean): string {
  return outside
    ? `remove it (sudo rm -rf ${p}): klaude makes its own again; a directory there that is not yours may be someone impersonating klaude`
    : `if it should be yours: sudo chown -R "$(id -u)" ${p}; otherwise set KLAUDE_HOME to a directory of yours`;
}

/**
 * The raw SQLite connection: private file modes, pragmas, schema version. Deliberately free of
 * drizzle so the hook fast path (fast.ts) can open the DB without loading the ORM.
 */
import Database from 'better-sqlite3';
import { closeSync, constants as fsc, existsSync, fchmodSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import journal from '../../drizzle/meta/_journal.json' with { type: 'json' };
import { isAddonLoadFailure, moduleLoadError } from '../config/install.js';
import { KlaudeError } from '../lib/errors.js';
import { isModuleLoadError, sqliteAddon, sqliteLoadProblem, sqliteModule, sqliteModuleError } from './sqlite-addon.js';

export type Sqlite = Database.Database;
/** What the drizzle-free repos need: both Db (client.ts) and FastDb (fast.ts) qualify. */
export interface HasSqlite {
  sqlite: Sqlite;
}

export const BUSY_TIMEOUT_MS = 5000;
/**
 * Number of migrations this build knows about (embedded from drizzle/meta/_journal.json at build
 * time, so checking it reads no file). `PRAGMA user_version` holds how many are applied.
 */
export const SCHEMA_VERSION: number = journal.entries.length;

/**
 * `new Database` with the native module sqlite-addon.ts loaded: a module that cannot load is
 * E_SQLITE_MODULE (naming it and the fix), whichever way better-sqlite3 would have found it.
 */
export function openSqlite(file: string, opts: Database.Options = {}): Sqlite {
  const addon = sqliteAddon();
  try {
    // better-sqlite3 takes the loaded module as well as a path (lib/database.js); its types say path only.
    return new Database(file, addon ? { ...opts, nativeBinding: addon as unknown as string } : opts);
  } catch (e) {
    if (addon || !isModuleLoadError(e)) throw e;
    const m = sqliteModule();
    throw sqliteModuleError(m, sqliteLoadProblem(m, e));
  }
}

/**
 * Open `file` with the pragmas every connection needs: busy_timeout (first), WAL,
 * synchronous=NORMAL, foreign_keys=ON. The file must exist (createPrivateFile) unless `create`.
 */
export function connect(file: string, opts: { create?: boolean } = {}): Sqlite {
  const sqlite = openSqlite(file, { fileMustExist: !opts.create });
  try {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`); // before journal_mode: see enableWal
    enableWal(sqlite);
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    return sqlite;
  } catch (e) {
    sqlite.close();
    throw e;
  }
}

export function userVersion(sqlite: Sqlite): number {
  return Number(sqlite.pragma('user_version', { simple: true }));
}

/** Bumped whenever another connection commits (a read of this connection's state: no I/O). */
export function dataVersion(db: HasSqlite): number {
  return db.sqlite.pragma('data_version', { simple: true }) as number;
}

/**
 * A DB migrated by a newer klaude has tables and meanings this build does not know: writing to it
 * could corrupt what the newer build relies on, so it is refused rather than used silently.
 * Returns the schema version it read.
 */
export function assertNotTooNew(sqlite: Sqlite, known: number, file: string): number {
  const v = userVersion(sqlite);
  if (v > known) {
    throw new KlaudeError(
      'E_DB_TOO_NEW',
      `the klaude database ${file} is from a newer klaude (schema ${v}, this klaude knows ${known})`,
      {
        hint: 'upgrade klaude (`klaude doctor` names the command for this install), or point KLAUDE_HOME elsewhere',
      },
    );
  }
  return v;
}

export function journalLength(folder: string): number {
  const file = path.join(folder, 'meta', '_journal.json');
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { entries?: unknown[] };
    return parsed.entries?.length ?? 0;
  } catch (e) {
    throw new KlaudeError('E_DB', `cannot read the migrations journal ${file}`, { cause: e });
  }
}

/**
 * Create the DB file 0600 before SQLite does (it would use 0644 & ~umask). O_EXCL so only the
 * creator sets the mode; fchmod makes it exact whatever the umask. SQLite gives -wal and -shm the
 * main file's mode, so they end up 0600 too.
 */
export function createPrivateFile(file: string): void {
  if (existsSync(file)) return;
  let fd: number;
  try {
    fd = openSync(file, fsc.O_RDWR | fsc.O_CREAT | fsc.O_EXCL, 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return; // another process won the race
    throw e;
  }
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}

/**
 * Switch to WAL. journal_mode is persistent, so this is one read once the file is in WAL. The
 * switch itself skips the busy handler (it fails at once with SQLITE_BUSY while another connection
 * holds a lock, e.g. two processes opening a fresh home), so on BUSY we wait for the other
 * connection the way SQLite waits: an exclusive transaction, which goes through busy_timeout, then
 * try again. Only a brand-new file gets here more than once.
 */
function enableWal(sqlite: Sqlite): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (;;) {
    try {
      if (String(sqlite.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
      if (String(sqlite.pragma('journal_mode = WAL', { simple: true })).toLowerCase() === 'wal') return;
    } catch (e) {
      if (!isBusy(e)) throw e;
    }
    if (Date.now() >= deadline) throw new KlaudeError('E_DB', 'timed out switching the database to WAL mode');
    try {
      sqlite.exec('BEGIN EXCLUSIVE');
      sqlite.exec('COMMIT');
    } catch (e) {
      if (!isBusy(e)) throw e;
    }
  }
}

export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export function asDbError(e: unknown, message: string): KlaudeError {
  if (e instanceof KlaudeError) return e;
  // better-sqlite3's addon loads with the first connection: a failed build or another Node's build
  // shows here, and its repair is a rebuild in klaude's folder, not anything about the file.
  if (isAddonLoadFailure(e)) return moduleLoadError('better-sqlite3', e);
  const detail = e instanceof Error ? e.message : String(e);
  return new KlaudeError('E_DB', `${message}: ${detail}`, { cause: e });
}

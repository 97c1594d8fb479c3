/**
 * Opening the database: `<home>/sessions.db`, WAL, private file modes, migrations under a
 * cross-process lock.
 *
 * Fast path (hooks open the DB on every tool call): a few pragmas and one `PRAGMA user_version`
 * read, compared with the number of migrations embedded from drizzle/meta/_journal.json at build
 * time. Only when the DB is behind do we find drizzle/ on disk, take `<home>/.migrate.lock`,
 * re-check, run drizzle's migrate() and store the new count in user_version.
 */
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { closeSync, constants as fsc, existsSync, fchmodSync, openSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import journal from '../../drizzle/meta/_journal.json' with { type: 'json' };
import { dbPath, ensurePrivateDir } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { sleepSync, withMigrateLock } from './lock.js';
import * as schema from './schema.js';

export type Orm = BetterSQLite3Database<typeof schema>;

export interface Db {
  sqlite: Database.Database;
  orm: Orm;
  /** File path, or ':memory:'. */
  path: string;
  /** True when this open applied migrations (diagnostics and tests). */
  migrated: boolean;
  close(): void;
}

export interface OpenDbOptions {
  /** Use this migrations folder instead of the shipped one (tests of future migrations). */
  migrationsFolder?: string;
  /** How long to wait for another process's migration lock (default 15 s) before E_LOCK. */
  lockTimeoutMs?: number;
}

export const BUSY_TIMEOUT_MS = 5000;
/** Number of migrations this build knows about; `PRAGMA user_version` holds how many are applied. */
export const SCHEMA_VERSION: number = journal.entries.length;

/** Open (creating and migrating as needed) `<home>/sessions.db`. Throws E_DB or E_LOCK. */
export function openDb(home: string, opts: OpenDbOptions = {}): Db {
  const file = dbPath(home);
  let sqlite: Database.Database | undefined;
  try {
    ensurePrivateDir(home);
    createPrivateFile(file);
    const conn = (sqlite = new Database(file));
    conn.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`); // before journal_mode: see enableWal
    enableWal(conn);
    conn.pragma('synchronous = NORMAL');
    conn.pragma('foreign_keys = ON');
    const db = wrap(conn, file);
    const target = opts.migrationsFolder ? journalLength(opts.migrationsFolder) : SCHEMA_VERSION;
    if (userVersion(conn) < target) {
      withMigrateLock(
        home,
        () => {
          // Re-check under the lock: another process may have migrated while we waited.
          if (userVersion(conn) < target) runMigrations(db, opts.migrationsFolder ?? findMigrationsFolder());
        },
        { timeoutMs: opts.lockTimeoutMs },
      );
    }
    return db;
  } catch (e) {
    sqlite?.close();
    throw asDbError(e, `cannot open the klaude database at ${file}`);
  }
}

/** A fresh, fully migrated in-memory database (tests, dry runs). */
export function openMemoryDb(opts: OpenDbOptions = {}): Db {
  const sqlite = new Database(':memory:');
  sqlite.pragma('foreign_keys = ON');
  const db = wrap(sqlite, ':memory:');
  try {
    runMigrations(db, opts.migrationsFolder ?? findMigrationsFolder());
  } catch (e) {
    sqlite.close();
    throw asDbError(e, 'cannot create the in-memory klaude database');
  }
  return db;
}

/**
 * Run `fn` in a write transaction that takes the write lock up front (BEGIN IMMEDIATE), so it
 * waits on busy_timeout instead of failing with SQLITE_BUSY_SNAPSHOT when it upgrades from read
 * to write. `fn` must be synchronous. Nested calls become savepoints.
 */
export function tx<T>(db: Db, fn: () => T): T {
  return db.sqlite.transaction(fn).immediate();
}

/**
 * The shipped drizzle/ folder, found by walking up from this module: `src/db/` under vitest/tsx,
 * `dist/` or `dist/chunks/` when bundled, `node_modules/klaude/dist…` when installed.
 */
export function findMigrationsFolder(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (let i = 0; i < 8; i++) {
    const candidate = path.join(dir, 'drizzle');
    if (existsSync(path.join(candidate, 'meta', '_journal.json'))) return candidate;
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new KlaudeError('E_DB', `cannot find klaude's migrations (drizzle/meta/_journal.json) above ${from}`, {
    hint: 'reinstall klaude: the package ships a drizzle/ folder next to dist/',
  });
}

export function userVersion(sqlite: Database.Database): number {
  return Number(sqlite.pragma('user_version', { simple: true }));
}

function wrap(sqlite: Database.Database, file: string): Db {
  return {
    sqlite,
    orm: drizzle({ client: sqlite, schema }),
    path: file,
    migrated: false,
    close: () => {
      if (sqlite.open) sqlite.close();
    },
  };
}

/**
 * Apply pending migrations (caller holds the migrate lock for file DBs). Foreign keys are off
 * meanwhile: drizzle-kit rebuilds tables (`INSERT INTO __new_x …; DROP TABLE x`) inside one
 * transaction, where `PRAGMA foreign_keys=OFF` is a no-op, and a DROP with keys on would cascade
 * into child rows. Violations are checked before committing the new user_version.
 */
function runMigrations(db: Db, folder: string): void {
  const { sqlite } = db;
  const count = journalLength(folder);
  sqlite.pragma('foreign_keys = OFF');
  try {
    migrate(db.orm, { migrationsFolder: folder });
    const violations = sqlite.pragma('foreign_key_check') as unknown[];
    if (violations.length > 0) {
      throw new KlaudeError('E_DB', `migration left ${violations.length} foreign-key violation(s)`, {
        details: { violations: violations.slice(0, 20) },
      });
    }
    sqlite.pragma(`user_version = ${count}`);
    db.migrated = true;
  } finally {
    sqlite.pragma('foreign_keys = ON');
  }
}

function journalLength(folder: string): number {
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
function createPrivateFile(file: string): void {
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
 * holds a lock), so retry with backoff for up to busy_timeout.
 */
function enableWal(sqlite: Database.Database): void {
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  let delay = 2;
  for (;;) {
    try {
      if (String(sqlite.pragma('journal_mode', { simple: true })).toLowerCase() === 'wal') return;
      if (String(sqlite.pragma('journal_mode = WAL', { simple: true })).toLowerCase() === 'wal') return;
    } catch (e) {
      if (!isBusy(e)) throw e;
    }
    if (Date.now() >= deadline) throw new KlaudeError('E_DB', 'timed out switching the database to WAL mode');
    sleepSync(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 100);
  }
}

export function isBusy(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

function asDbError(e: unknown, message: string): KlaudeError {
  if (e instanceof KlaudeError) return e;
  const detail = e instanceof Error ? e.message : String(e);
  return new KlaudeError('E_DB', `${message}: ${detail}`, { cause: e });
}

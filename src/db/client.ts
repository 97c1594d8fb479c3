/**
 * Opening the database: `<home>/sessions.db`, WAL, private file modes, migrations under a
 * cross-process lock.
 *
 * Fast path: a few pragmas and one `PRAGMA user_version` read, compared with SCHEMA_VERSION (the
 * migration count embedded at build time). Only when the DB is behind do we find drizzle/ on disk,
 * take `<home>/.migrate.lock`, re-check, run drizzle's migrate() and store the new count in
 * user_version. Hooks that want to skip loading drizzle altogether use fast.ts.
 */
import Database from 'better-sqlite3';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { migrate } from 'drizzle-orm/better-sqlite3/migrator';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dbPath, ensurePrivateDir } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { asDbError, assertNotTooNew, connect, createPrivateFile, journalLength, SCHEMA_VERSION, userVersion, type Sqlite } from './connection.js';
import { withMigrateLock } from './lock.js';
import * as schema from './schema.js';

export { BUSY_TIMEOUT_MS, SCHEMA_VERSION, userVersion } from './connection.js';

export type Orm = BetterSQLite3Database<typeof schema>;

export interface Db {
  sqlite: Sqlite;
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

/** Open (creating and migrating as needed) `<home>/sessions.db`. Throws E_DB or E_LOCK. */
export function openDb(home: string, opts: OpenDbOptions = {}): Db {
  const file = dbPath(home);
  let sqlite: Sqlite | undefined;
  try {
    ensurePrivateDir(home);
    createPrivateFile(file);
    const conn = (sqlite = connect(file));
    const db = wrap(conn, file);
    const target = opts.migrationsFolder ? journalLength(opts.migrationsFolder) : SCHEMA_VERSION;
    assertNotTooNew(conn, target, file);
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
export function openMemoryDb(opts: Pick<OpenDbOptions, 'migrationsFolder'> = {}): Db {
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
export function tx<T>(db: Pick<Db, 'sqlite'>, fn: () => T): T {
  return db.sqlite.transaction(fn).immediate();
}

/**
 * The shipped drizzle/ folder, found by walking up (at most 8 levels) from this module: `src/db/`
 * under vitest/tsx, `dist/` or `dist/chunks/` when bundled, `node_modules/klaude/dist…` installed.
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

function wrap(sqlite: Sqlite, file: string): Db {
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
 * into child rows. Violations are checked before the new user_version is stored.
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

/**
 * Opening the database: `<home>/sessions.db`, WAL, private file modes, migrations under a
 * cross-process lock.
 *
 * Fast path: a few pragmas and one `PRAGMA user_version` read, compared with SCHEMA_VERSION (the
 * migration count embedded at build time). Only when the DB is behind do we find drizzle/ on disk,
 * take `<home>/.migrate.lock`, re-check, run drizzle's migrate() and store the new count in
 * user_version. Hooks that want to skip loading drizzle altogether use fast.ts.
 */
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { readMigrationFiles, type MigrationMeta } from 'drizzle-orm/migrator';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dbPath, ensurePrivateDir } from '../config/paths.js';
import { reinstallHint } from '../config/install.js';
import { KlaudeError } from '../lib/errors.js';
import {
  asDbError,
  assertNotTooNew,
  BUSY_TIMEOUT_MS,
  connect,
  createPrivateFile,
  isBusy,
  journalLength,
  openSqlite,
  SCHEMA_VERSION,
  userVersion,
  type Sqlite,
} from './connection.js';
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
  /** How long to wait for SQLite's write lock when migrating (default 15 s) before E_LOCK. */
  lockTimeoutMs?: number;
}

export const MIGRATE_TIMEOUT_MS = 15_000;

/**
 * Open (creating and migrating as needed) `<home>/sessions.db`. Throws E_DB or E_LOCK. Processes
 * that open a DB behind its migrations at the same time are serialised by SQLite's own write lock
 * (see runMigrations): no lock file, no wait of our own.
 */
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
    if (userVersion(conn) < target)
      runMigrations(db, opts.migrationsFolder ?? findMigrationsFolder(), opts.lockTimeoutMs ?? MIGRATE_TIMEOUT_MS);
    return db;
  } catch (e) {
    sqlite?.close();
    throw asDbError(e, `cannot open the klaude database at ${file}`);
  }
}

/** A fresh, fully migrated in-memory database (tests, dry runs). */
export function openMemoryDb(opts: Pick<OpenDbOptions, 'migrationsFolder'> = {}): Db {
  const sqlite = openSqlite(':memory:');
  sqlite.pragma('foreign_keys = ON');
  const db = wrap(sqlite, ':memory:');
  try {
    runMigrations(db, opts.migrationsFolder ?? findMigrationsFolder(), 0);
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
 * under vitest/tsx, `dist/`, `dist/cmd/` or `dist/chunks/` when bundled, `node_modules/klaude/dist…` installed.
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
    hint: `the install is incomplete (its drizzle/ folder ships next to dist/): ${reinstallHint()}`,
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
 * Apply the pending migrations in ONE `BEGIN IMMEDIATE` transaction: SQLite's write lock is the
 * migration lock. Concurrent openers wait for it on the busy handler (up to `timeoutMs`, then
 * E_LOCK) and, once they hold it, find user_version up to date and apply nothing. A crash midway
 * rolls back everything: the DB is either at its old version or at the new one.
 *
 * Pending = the journal entries newer than the newest row of drizzle's `__drizzle_migrations`
 * (drizzle's own rule, so DBs migrated by drizzle's migrator carry on), however many there are;
 * user_version = the journal's length afterwards. Foreign keys are off meanwhile (set outside the
 * transaction: inside one the pragma is a no-op): drizzle-kit rebuilds tables with
 * `INSERT INTO __new_x …; DROP TABLE x`, where a DROP with keys on would cascade into child rows.
 * Violations are checked before committing.
 */
function runMigrations(db: Db, folder: string, timeoutMs: number): void {
  const { sqlite } = db;
  const migrations = readMigrationFiles({ migrationsFolder: folder });
  sqlite.pragma('foreign_keys = OFF');
  sqlite.pragma(`busy_timeout = ${timeoutMs}`);
  try {
    db.migrated = sqlite.transaction(() => applyPending(sqlite, migrations)).immediate();
  } catch (e) {
    if (isBusy(e)) {
      throw new KlaudeError(
        'E_LOCK',
        `timed out after ${Math.round(timeoutMs / 1000)} s waiting for another klaude to finish migrating the database`,
        {
          hint: 'try again; if it persists, look for a stuck klaude process holding the database',
          cause: e,
        },
      );
    }
    throw e;
  } finally {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    sqlite.pragma('foreign_keys = ON');
  }
}

/** Inside the write transaction: false when another process already migrated. */
function applyPending(sqlite: Sqlite, migrations: MigrationMeta[]): boolean {
  if (userVersion(sqlite) >= migrations.length) return false;
  sqlite.exec(
    'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)',
  );
  const last = sqlite.prepare('SELECT max(created_at) AS at FROM "__drizzle_migrations"').get() as {
    at: number | null;
  };
  const record = sqlite.prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)');
  for (const m of migrations) {
    if (last.at !== null && Number(last.at) >= m.folderMillis) continue;
    for (const stmt of m.sql) if (stmt.trim()) sqlite.exec(stmt);
    record.run(m.hash, m.folderMillis);
  }
  const violations = sqlite.pragma('foreign_key_check') as unknown[];
  if (violations.length > 0) {
    throw new KlaudeError('E_DB', `migration left ${violations.length} foreign-key violation(s)`, {
      details: { violations: violations.slice(0, 20) },
    });
  }
  sqlite.pragma(`user_version = ${migrations.length}`);
  return true;
}

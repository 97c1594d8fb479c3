import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
  existsSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  BUSY_TIMEOUT_MS,
  findMigrationsFolder,
  openDb,
  openMemoryDb,
  SCHEMA_VERSION,
  tx,
  userVersion,
} from '../../src/db/client.js';
import { openFastDb } from '../../src/db/fast.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, getSession } from '../../src/db/repos/sessions.js';
import { linkClaudeSession, findLinkByClaudeId } from '../../src/db/repos/links.js';
import { recordProcess, currentProcesses } from '../../src/db/repos/processes.js';
import { addUpdate, pendingUpdates } from '../../src/db/repos/updates.js';
import { addEvent } from '../../src/db/repos/events.js';
import { isKlaudeError } from '../../src/lib/errors.js';
import Database from 'better-sqlite3';

/** Another connection holding SQLite's write lock (what a migrating process holds). */
function holdWriteLock(home: string): { release(): void } {
  const other = new Database(path.join(home, 'sessions.db'));
  other.exec('BEGIN IMMEDIATE');
  return {
    release: () => {
      other.exec('ROLLBACK');
      other.close();
    },
  };
}

const REPO = path.resolve(import.meta.dirname, '../..');
const TABLES = [
  'agent_updates',
  'claude_session_links',
  'events',
  'instances',
  'projects',
  'runtime_process',
  'sessions',
];

let root: string;
let savedUmask: number;
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-db-open-')));
  savedUmask = process.umask();
});
afterEach(() => {
  process.umask(savedUmask);
  rmSync(root, { recursive: true, force: true });
});

const mode = (p: string) => statSync(p).mode & 0o777;
const tables = (db: ReturnType<typeof openDb>) =>
  (
    db.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]
  ).map((r) => r.name);
const migrationRows = (db: ReturnType<typeof openDb>) =>
  (db.sqlite.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n;

describe('openDb on a fresh home', () => {
  it.each([
    ['022', 0o022],
    ['277', 0o277],
  ])('creates home 0700 and the DB 0600 (also -wal/-shm) with umask %s', (_label, umask) => {
    process.umask(umask);
    const home = path.join(root, 'nested', 'klaude');
    const db = openDb(home);
    try {
      expect(db.path).toBe(path.join(home, 'sessions.db'));
      expect(mode(home)).toBe(0o700);
      expect(mode(db.path)).toBe(0o600);
      ensureProject(db, { hash: 'a'.repeat(24), rootPath: '/p' }); // a write, so the WAL is in use
      for (const f of [`${db.path}-wal`, `${db.path}-shm`]) {
        expect(existsSync(f), f).toBe(true);
        expect(mode(f), f).toBe(0o600);
      }
    } finally {
      db.close();
    }
  });

  it('creates every table, migrates, and sets the pragmas', () => {
    const db = openDb(path.join(root, 'k'));
    try {
      expect(db.migrated).toBe(true);
      expect(tables(db)).toEqual(expect.arrayContaining(TABLES));
      expect(db.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(db.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
      expect(db.sqlite.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
      const journal = JSON.parse(readFileSync(path.join(REPO, 'drizzle/meta/_journal.json'), 'utf8')) as {
        entries: unknown[];
      };
      expect(SCHEMA_VERSION).toBe(journal.entries.length); // the embedded count matches the shipped journal
      expect(userVersion(db.sqlite)).toBe(SCHEMA_VERSION);
      expect(migrationRows(db)).toBe(SCHEMA_VERSION);
      expect(existsSync(path.join(root, 'k', '.migrate.lock'))).toBe(false); // no lock file: SQLite's lock does it
    } finally {
      db.close();
    }
  });

  it('a second open takes the fast path: no migration, no lock', () => {
    const home = path.join(root, 'k');
    openDb(home).close();
    // The write lock held elsewhere: taking it would wait and fail with E_LOCK.
    const held = holdWriteLock(home);
    const db = openDb(home, { lockTimeoutMs: 200 });
    held.release();
    try {
      expect(db.migrated).toBe(false);
      expect(migrationRows(db)).toBe(SCHEMA_VERSION);
      expect(userVersion(db.sqlite)).toBe(SCHEMA_VERSION);
    } finally {
      db.close();
    }
  });

  it('a DB behind its migrations waits for the write lock and fails with E_LOCK, changing nothing', () => {
    const home = path.join(root, 'k');
    const first = openDb(home);
    first.sqlite.pragma('user_version = 0');
    first.close();
    const held = holdWriteLock(home);
    let err: unknown;
    const started = Date.now();
    try {
      openDb(home, { lockTimeoutMs: 300 }).close();
    } catch (e) {
      err = e;
    } finally {
      held.release();
    }
    expect(isKlaudeError(err) && err.code).toBe('E_LOCK');
    expect(Date.now() - started).toBeLessThan(3000); // waits the timeout given, not more
    const after = openDb(home, { lockTimeoutMs: 2000 });
    try {
      expect(after.migrated).toBe(true); // the failed open wrote nothing
      expect(after.sqlite.pragma('busy_timeout', { simple: true })).toBe(BUSY_TIMEOUT_MS); // back to normal after migrating
    } finally {
      after.close();
    }
  });

  it('a lock held by a process that died is gone with it; re-migrates idempotently', async () => {
    const home = path.join(root, 'k');
    const first = openDb(home);
    first.sqlite.pragma('user_version = 0');
    first.close();
    const { spawnSync } = await import('node:child_process');
    // A process that takes the write lock and dies holding it (SIGKILL: no rollback of its own).
    const script = `const D=require('better-sqlite3');const d=new D(${JSON.stringify(path.join(home, 'sessions.db'))});d.exec('BEGIN IMMEDIATE');d.exec("CREATE TABLE half_done(x)");process.kill(process.pid,'SIGKILL');`;
    const dead = spawnSync(process.execPath, ['-e', script], { cwd: REPO });
    expect(dead.signal).toBe('SIGKILL');
    const db = openDb(home, { lockTimeoutMs: 2000 });
    try {
      expect(db.migrated).toBe(true);
      expect(userVersion(db.sqlite)).toBe(SCHEMA_VERSION);
      expect(migrationRows(db)).toBe(SCHEMA_VERSION); // what was applied is skipped
      expect(tables(db)).not.toContain('half_done'); // the dead writer's transaction was rolled back
    } finally {
      db.close();
    }
  });

  it('wraps open failures in E_DB', () => {
    const home = path.join(root, 'k');
    mkdirSync(path.join(home, 'sessions.db'), { recursive: true }); // a directory where the file goes
    let err: unknown;
    try {
      openDb(home).close();
    } catch (e) {
      err = e;
    }
    expect(isKlaudeError(err) && err.code).toBe('E_DB');
  });
});

describe('openFastDb', () => {
  it('is null for a missing or behind DB and opens an up-to-date one with the same pragmas', () => {
    const home = path.join(root, 'k');
    expect(openFastDb(home)).toBeNull();
    expect(existsSync(home)).toBe(false); // it creates nothing
    const full = openDb(home);
    ensureProject(full, { hash: 'e'.repeat(24), rootPath: '/e' });
    full.sqlite.pragma('user_version = 0');
    expect(openFastDb(home)).toBeNull();
    full.sqlite.pragma(`user_version = ${SCHEMA_VERSION}`);
    full.close();
    const fast = openFastDb(home)!;
    try {
      expect(fast.sqlite.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(fast.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
      expect(fast.sqlite.pragma('busy_timeout', { simple: true })).toBe(5000);
      const id = addEvent(fast, { projectId: 'e'.repeat(24), kind: 'hook.post_tool_use', payload: { n: 1 } });
      expect(id).toBeGreaterThan(0);
    } finally {
      fast.close();
    }
  });
});

describe('foreign keys', () => {
  it('cascade from project and session, set null on parent', () => {
    const db = openDb(path.join(root, 'k'));
    try {
      const p = ensureProject(db, { hash: 'b'.repeat(24), rootPath: '/proj' });
      const parent = createSession(db, { projectId: p.id, type: 'tui' });
      const child = createSession(db, { projectId: p.id, type: 'general', parentId: parent.id });
      linkClaudeSession(db, { klaudeSessionId: parent.id, claudeSessionId: 'uuid-parent', source: 'startup' });
      recordProcess(db, { klaudeSessionId: parent.id, pid: 1234, kind: 'claude' });
      addUpdate(db, { sessionId: child.id, parentSessionId: parent.id, text: 'half way' });
      const ev = addEvent(db, { projectId: p.id, klaudeSessionId: parent.id, kind: 'test' });

      expect(() => createSession(db, { projectId: 'nope', type: 'x' })).toThrow(/FOREIGN KEY/);

      db.sqlite.prepare('DELETE FROM sessions WHERE id = ?').run(parent.id);
      expect(getSession(db, child.id)?.parentId).toBeNull();
      expect(findLinkByClaudeId(db, 'uuid-parent')).toBeUndefined();
      expect(currentProcesses(db, parent.id)).toEqual([]);
      expect(pendingUpdates(db, parent.id)).toEqual([]);
      expect(db.sqlite.prepare('SELECT klaude_session_id AS s FROM events WHERE id = ?').get(ev)).toEqual({ s: null });

      db.sqlite.prepare('DELETE FROM projects WHERE id = ?').run(p.id);
      expect(getSession(db, child.id)).toBeUndefined();
      expect(db.sqlite.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 0 });
    } finally {
      db.close();
    }
  });
});

describe('tx', () => {
  it('runs IMMEDIATE, rolls back on throw, and nests', () => {
    const db = openDb(path.join(root, 'k'));
    try {
      expect(() =>
        tx(db, () => {
          ensureProject(db, { hash: 'c'.repeat(24), rootPath: '/c' });
          expect(db.sqlite.inTransaction).toBe(true);
          tx(db, () => ensureProject(db, { hash: 'd'.repeat(24), rootPath: '/d' }));
          throw new Error('boom');
        }),
      ).toThrow('boom');
      expect(db.sqlite.prepare('SELECT count(*) AS n FROM projects').get()).toEqual({ n: 0 });
      expect(tx(db, () => ensureProject(db, { hash: 'c'.repeat(24), rootPath: '/c' }).id)).toBe('c'.repeat(24));
    } finally {
      db.close();
    }
  });
});

describe('openMemoryDb and the migrations folder', () => {
  it('opens a migrated in-memory DB', () => {
    const db = openMemoryDb();
    try {
      expect(db.path).toBe(':memory:');
      expect(tables(db)).toEqual(expect.arrayContaining(TABLES));
      expect(db.sqlite.pragma('foreign_keys', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it('is found by walking up from a bundled location (dist/chunks); E_DB when absent', () => {
    const pkg = path.join(root, 'node_modules', 'klaude');
    mkdirSync(path.join(pkg, 'drizzle', 'meta'), { recursive: true });
    mkdirSync(path.join(pkg, 'dist', 'chunks'), { recursive: true });
    writeFileSync(path.join(pkg, 'drizzle', 'meta', '_journal.json'), '{"entries":[]}');
    expect(findMigrationsFolder(path.join(pkg, 'dist', 'chunks'))).toBe(path.join(pkg, 'drizzle'));
    expect(findMigrationsFolder(path.join(pkg, 'dist'))).toBe(path.join(pkg, 'drizzle'));
    expect(findMigrationsFolder(path.join(REPO, 'src', 'db'))).toBe(path.join(REPO, 'drizzle'));
    let err: unknown;
    try {
      findMigrationsFolder(path.join(root, 'elsewhere'));
    } catch (e) {
      err = e;
    }
    expect(isKlaudeError(err) && err.code).toBe('E_DB');
  });
});

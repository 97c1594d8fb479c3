// Several processes opening one home at the same instant: hooks, `klaude` subcommands and the
// supervisor all call openDb. The children run the client bundled by esbuild the way dist/ ships it
// (better-sqlite3 external, drizzle/ found by walking up from dist/chunks/).
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb, SCHEMA_VERSION } from '../../src/db/client.js';

const REPO = path.resolve(import.meta.dirname, '../..');
const N = 6;
let root: string;
let child: string;

beforeAll(async () => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-db-conc-')));
  const pkg = path.join(root, 'pkg');
  mkdirSync(path.join(pkg, 'dist', 'chunks'), { recursive: true });
  cpSync(path.join(REPO, 'drizzle'), path.join(pkg, 'drizzle'), { recursive: true });
  symlinkSync(path.join(REPO, 'node_modules'), path.join(pkg, 'node_modules'), 'dir');
  const entry = path.join(root, 'child.ts');
  writeFileSync(
    entry,
    `
import { openDb } from ${JSON.stringify(path.join(REPO, 'src/db/client.ts'))};
import { ensureProject } from ${JSON.stringify(path.join(REPO, 'src/db/repos/projects.ts'))};
const [home, startAt, folder] = process.argv.slice(2);
const wait = Number(startAt) - Date.now();
if (wait > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, wait);
const db = openDb(home!, folder ? { migrationsFolder: folder } : {});
ensureProject(db, { hash: String(process.pid).padStart(24, '0'), rootPath: '/p/' + process.pid });
const userVersion = db.sqlite.pragma('user_version', { simple: true });
db.close();
process.stdout.write(JSON.stringify({ migrated: db.migrated, userVersion }));
`,
  );
  child = path.join(pkg, 'dist', 'chunks', 'child.mjs');
  await build({
    entryPoints: [entry],
    outfile: child,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    external: ['better-sqlite3'],
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'error',
  });
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

interface ChildResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runChild(args: string[]): Promise<ChildResult> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, [child, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d: Buffer) => (stdout += d));
    p.stderr.on('data', (d: Buffer) => (stderr += d));
    p.on('error', reject);
    p.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Start n children (N by default) that all call openDb at the same wall-clock instant. */
async function openAtOnce(home: string, folder?: string, n = N): Promise<{ migrated: boolean; userVersion: number }[]> {
  const startAt = Date.now() + 1500;
  const results = await Promise.all(
    Array.from({ length: n }, () => runChild([home, String(startAt), ...(folder ? [folder] : [])])),
  );
  for (const r of results) expect(r.code, r.stderr).toBe(0);
  return results.map((r) => JSON.parse(r.stdout) as { migrated: boolean; userVersion: number });
}

function inspect(home: string) {
  const db = new Database(path.join(home, 'sessions.db'), { readonly: true });
  try {
    return {
      userVersion: db.pragma('user_version', { simple: true }) as number,
      migrations: (db.prepare('SELECT count(*) AS n FROM __drizzle_migrations').get() as { n: number }).n,
      projects: (db.prepare('SELECT count(*) AS n FROM projects').get() as { n: number }).n,
      sessionColumns: (db.pragma('table_info(sessions)') as { name: string }[]).map((c) => c.name),
    };
  } finally {
    db.close();
  }
}

/** The shipped migrations plus a 0001 that adds a column (fails if run twice: duplicate column). */
function migrationsWithAddColumn(): string {
  const dir = path.join(root, `mig-${Math.random().toString(36).slice(2)}`);
  cpSync(path.join(REPO, 'drizzle'), dir, { recursive: true });
  const journalPath = path.join(dir, 'meta', '_journal.json');
  const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as {
    entries: { idx: number; version: string; when: number; tag: string; breakpoints: boolean }[];
  };
  const last = journal.entries.at(-1)!;
  const tag = `${String(journal.entries.length).padStart(4, '0')}_test_add_column`;
  writeFileSync(path.join(dir, `${tag}.sql`), 'ALTER TABLE `sessions` ADD `test_note` text;');
  journal.entries.push({ idx: last.idx + 1, version: last.version, when: last.when + 1000, tag, breakpoints: true });
  writeFileSync(journalPath, JSON.stringify(journal, null, 2));
  return dir;
}

describe('concurrent openDb', () => {
  it.each([1, 2, 3])(
    'six processes on a fresh home all succeed; the schema is migrated once (trial %i)',
    async (trial) => {
      const home = path.join(root, `fresh-${trial}`);
      const results = await openAtOnce(home);
      expect(results.filter((r) => r.migrated)).toHaveLength(1);
      expect(results.every((r) => r.userVersion === SCHEMA_VERSION)).toBe(true);
      const s = inspect(home);
      expect(s.userVersion).toBe(SCHEMA_VERSION);
      expect(s.migrations).toBe(SCHEMA_VERSION);
      expect(s.projects).toBe(N);
    },
  );

  it.each([1, 2])(
    'six processes on a DB one migration behind (ALTER TABLE ADD) all succeed (trial %i)',
    async (trial) => {
      const home = path.join(root, `behind-${trial}`);
      openDb(home).close(); // at the shipped version
      const folder = migrationsWithAddColumn();
      const results = await openAtOnce(home, folder);
      expect(results.filter((r) => r.migrated)).toHaveLength(1);
      const s = inspect(home);
      expect(s.userVersion).toBe(SCHEMA_VERSION + 1);
      expect(s.migrations).toBe(SCHEMA_VERSION + 1);
      expect(s.sessionColumns.filter((c) => c === 'test_note')).toHaveLength(1);
    },
  );

  // The race the old lock file lost: three openers of a DB one migration behind. SQLite's write lock
  // (BEGIN IMMEDIATE around the whole migration, user_version re-read inside) lets exactly one apply it.
  it.each([1, 2, 3])(
    'three processes on a DB one migration behind: exactly one migrates, once, with no lock file (trial %i)',
    async (trial) => {
      const home = path.join(root, `three-${trial}`);
      openDb(home).close();
      const folder = migrationsWithAddColumn();
      const results = await openAtOnce(home, folder, 3);
      expect(results).toHaveLength(3);
      expect(results.filter((r) => r.migrated)).toHaveLength(1);
      expect(results.every((r) => r.userVersion === SCHEMA_VERSION + 1)).toBe(true);
      const s = inspect(home);
      expect(s.userVersion).toBe(SCHEMA_VERSION + 1);
      expect(s.migrations).toBe(SCHEMA_VERSION + 1); // the new migration recorded once
      expect(s.sessionColumns.filter((c) => c === 'test_note')).toHaveLength(1); // and run once (a second ADD would fail)
      expect(s.projects).toBe(3);
      expect(existsSync(path.join(home, '.migrate.lock'))).toBe(false);
    },
  );

  it('three processes on a DB two migrations behind apply both, in order, in one go', async () => {
    const home = path.join(root, 'two-behind');
    openDb(home).close();
    const folder = migrationsWithAddColumn();
    // A second new migration that needs the first (it indexes the new column).
    const journalPath = path.join(folder, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalPath, 'utf8')) as {
      entries: { idx: number; when: number; tag: string }[];
    };
    const last = journal.entries.at(-1)!;
    const tag = `${String(journal.entries.length).padStart(4, '0')}_test_index`;
    writeFileSync(
      path.join(folder, `${tag}.sql`),
      'CREATE INDEX `sessions_test_note_idx` ON `sessions` (`test_note`);',
    );
    journal.entries.push({ ...last, idx: last.idx + 1, when: last.when + 1000, tag });
    writeFileSync(journalPath, JSON.stringify(journal, null, 2));
    const results = await openAtOnce(home, folder, 3);
    expect(results.filter((r) => r.migrated)).toHaveLength(1);
    const s = inspect(home);
    expect(s.userVersion).toBe(SCHEMA_VERSION + 2);
    expect(s.migrations).toBe(SCHEMA_VERSION + 2);
  });

  it('six processes on a DB whose user_version lags its applied migrations re-sync without re-running them', async () => {
    const home = path.join(root, 'lagging');
    const db = openDb(home);
    db.sqlite.pragma('user_version = 0');
    db.close();
    const results = await openAtOnce(home);
    expect(results.filter((r) => r.migrated)).toHaveLength(1);
    const s = inspect(home);
    expect(s.userVersion).toBe(SCHEMA_VERSION);
    expect(s.migrations).toBe(SCHEMA_VERSION);
  });
});

// `klaude doctor` (the built CLI) on a healthy home and on broken ones. The hooks line runs the real
// claude from node_modules with klaude's hooks; the stand-in of the Messages API listens so that a
// model request, if claude made one, would be seen: the probe must make none (claude 2.1.197 sends
// only a `HEAD /` to the base URL as it starts, which the stand-in records as kind 'other').
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectHash, runDir } from '../../src/config/paths.js';
import { openDb } from '../../src/db/client.js';
import { createInstance, endInstance } from '../../src/db/repos/instances.js';
import { recordProcess } from '../../src/db/repos/processes.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { checkRunDir } from '../../src/doctor/storage-checks.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { KLAUDE_CLI, REPO_ROOT, runKlaude } from '../support/klaude-bin.js';
import { runProcess } from '../support/run-process.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const OTHER_UID = 65534; // nobody
const LAZY_INIT = join(REPO_ROOT, 'scripts', 'lazy-init.py');

let mock: MockAnthropic | undefined;
let t: TempHome | undefined;
const children: ChildProcess[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  await mock?.close();
  t?.cleanup();
  mock = t = undefined;
});

interface Line {
  check: string;
  ok: boolean;
  level: 'ok' | 'warn' | 'error';
  detail: string;
  fix: string | null;
}

/** A home as klaude makes it (0700), its claude the pinned one, its database made by a command. */
async function healthyHome(): Promise<TempHome> {
  mock = await startMockAnthropic();
  t = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-doctor-' });
  chmodSync(t.klaudeHome, 0o700);
  writeFileSync(join(t.klaudeHome, 'config.yaml'), `claude:\n  binary: ${CLAUDE_BIN}\n`);
  const r = await runKlaude(['sessions'], { env: t.env, cwd: t.projectDir });
  expect(r.code).toBe(0);
  mkdirSync(join(runDir(t.klaudeHome, t.env), projectHash(t.projectDir), 'a'), { recursive: true, mode: 0o700 });
  return t;
}

async function doctor(h: TempHome): Promise<{ code: number | null; text: string; json: Line[] }> {
  const text = await runKlaude(['doctor'], { env: h.env, cwd: h.projectDir, timeoutMs: 60_000 });
  const json = await runKlaude(['doctor', '--json'], { env: h.env, cwd: h.projectDir, timeoutMs: 60_000 });
  expect(json.code).toBe(text.code);
  return { code: text.code, text: text.stdout, json: JSON.parse(json.stdout) as Line[] };
}

const line = (text: string, check: string): string =>
  text.split('\n').find((l) => new RegExp(`^[✔!✗] ${check} `).test(l)) ?? `(no ${check} line)`;
const entry = (json: Line[], check: string): Line => json.find((l) => l.check === check)!;

/** Make the database one a newer klaude migrated: its user_version and a newer migration row. */
function fromTheFuture(h: TempHome): void {
  const db = openDb(h.klaudeHome);
  try {
    const v = Number(db.sqlite.pragma('user_version', { simple: true }));
    db.sqlite
      .prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)')
      .run('a-newer-klaude', Date.UTC(2100, 0, 1));
    db.sqlite.pragma(`user_version = ${v + 1}`);
  } finally {
    db.close();
  }
}

describe('klaude doctor', () => {
  it('on a healthy home: every line ✔, exit 0, and the hooks probe made no model request', async () => {
    const h = await healthyHome();
    const { code, text, json } = await doctor(h);
    expect(text.split('\n').filter((l) => /^[!✗] /.test(l))).toEqual([]);
    expect(code).toBe(0);
    expect(line(text, 'hooks')).toMatch(/^✔ hooks +SessionStart ran klaude's hook and it recorded/);
    expect(line(text, 'claude')).toContain(`claude 2.1.197 at ${CLAUDE_BIN}`);
    expect(line(text, 'schema')).toMatch(/^✔ schema +schema (\d+) of \1/);
    expect(text).toMatch(/klaude looks healthy\n$/);
    expect(line(text, 'install')).toMatch(/^✔ install +klaude \d+\.\d+\.\d+, a clone at .*: whole; node-pty loads$/);
    expect(json.map((l) => l.check)).toEqual([
      'install',
      'node',
      'sqlite module',
      'config',
      'claude',
      'sandbox',
      'hooks',
      'database',
      'schema',
      'home',
      'run directory',
      'pty server',
      'leftover processes',
      'watchdogs',
      'init',
      'socket peers',
    ]);
    for (const l of json) expect(l).toEqual({ check: l.check, ok: true, level: 'ok', detail: l.detail, fix: null });
    // Two doctor runs, two probe claudes: not one request reached the stand-in.
    expect(mock!.requests.filter((r) => r.kind !== 'other')).toEqual([]);
  });

  it('says when the init never reaps dead orphans (a container without --init), and what it costs', async () => {
    const h = await healthyHome();
    // Its own PID namespace, whose init reaps nothing but the command (scripts/lazy-init.py).
    const ns = [...(isRoot ? [] : ['--user', '--map-root-user']), '--pid', '--fork', '--mount-proc'];
    const r = await runProcess(
      'unshare',
      [...ns, 'python3', LAZY_INIT, '--never', '--', process.execPath, KLAUDE_CLI, 'doctor', '--json'],
      { env: h.env, cwd: h.projectDir, timeoutMs: 60_000 },
    );
    const init = entry(JSON.parse(r.stdout) as Line[], 'init');
    expect(init).toMatchObject({ ok: true, level: 'warn' });
    expect(init.detail).toContain('does not reap dead orphans (still a zombie 3 s after it died');
    expect(init.detail).toContain('klaude counts a zombie as dead');
    expect(init.fix).toContain('--init');
    expect(entry(JSON.parse(r.stdout) as Line[], 'socket peers')).toMatchObject({ level: 'ok' });
  });

  it.skipIf(!isRoot)(
    'names each problem: hooks disabled, a database from a newer klaude, a run directory of another user (real chown: needs root)',
    async () => {
      const h = await healthyHome();
      writeFileSync(join(h.home, '.claude', 'settings.json'), JSON.stringify({ disableAllHooks: true }));
      fromTheFuture(h);
      const rd = runDir(h.klaudeHome, h.env);
      chownSync(rd, OTHER_UID, OTHER_UID);
      const { code, text, json } = await doctor(h);
      expect(code).toBe(1);
      const settings = join(h.home, '.claude', 'settings.json');
      expect(line(text, 'hooks')).toBe(
        `✗ hooks               claude ran no hook: disableAllHooks is true in ${settings}`,
      );
      expect(text).toContain(`fix: remove disableAllHooks from ${settings}`);
      expect(line(text, 'schema')).toMatch(/^✗ schema .* is from a newer klaude: schema (\d+), this klaude knows/);
      expect(line(text, 'run directory')).toContain(`${rd} belongs to another user (uid ${OTHER_UID}, you are 0)`);
      expect(text).toMatch(/3 problem\(s\) found\n$/);
      expect(json.filter((l) => !l.ok).map((l) => [l.check, l.level, typeof l.fix])).toEqual([
        ['hooks', 'error', 'string'],
        ['schema', 'error', 'string'],
        ['run directory', 'error', 'string'],
      ]);
      expect(mock!.requests.filter((r) => r.kind !== 'other')).toEqual([]);
    },
  );

  it('names a run directory of the wrong mode and a migration row newer than this klaude', async () => {
    const h = await healthyHome();
    const project = join(runDir(h.klaudeHome, h.env), projectHash(h.projectDir));
    chmodSync(project, 0o755);
    const db = openDb(h.klaudeHome);
    db.sqlite
      .prepare('INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (?, ?)')
      .run('x', Date.UTC(2100, 0, 1));
    db.close();
    const { code, text, json } = await doctor(h);
    expect(code).toBe(1);
    expect(line(text, 'run directory')).toBe(`✗ run directory       ${project} has mode 0755, not 0700`);
    expect(text).toContain(`fix: chmod 700 ${project}`);
    expect(line(text, 'schema')).toContain(
      'has a migration newer than this klaude knows (from 2100-01-01T00:00:00.000Z)',
    );
    expect(entry(json, 'hooks').level).toBe('ok');
    expect(json.filter((l) => !l.ok).map((l) => l.check)).toEqual(['schema', 'run directory']);
  });

  it('a file that is not a database is to be moved aside (only then)', async () => {
    const h = await healthyHome();
    const file = join(h.klaudeHome, 'sessions.db');
    for (const f of ['sessions.db-wal', 'sessions.db-shm']) rmSync(join(h.klaudeHome, f), { force: true });
    writeFileSync(file, 'not a database, just text '.repeat(100), { mode: 0o600 });
    const { code, text } = await doctor(h);
    expect(code).toBe(1);
    expect(line(text, 'database')).toMatch(/^✗ database +.*sessions\.db cannot be read: file is not a database$/);
    expect(text).toContain(`fix: move it aside (mv ${file} ${file}.broken;`);
  });

  it('names a recorded claude that outlived its supervisor', async () => {
    const h = await healthyHome();
    const sleeper = spawn('sleep', ['120'], { stdio: 'ignore' });
    children.push(sleeper);
    const db = openDb(h.klaudeHome);
    try {
      const project = ensureProject(db, { hash: projectHash(h.projectDir), rootPath: h.projectDir });
      const session = createSession(db, { projectId: project.id, type: 'tui' });
      const inst = createInstance(db, {
        projectId: project.id,
        pid: 1,
        socketPath: '/nowhere',
        cwd: h.projectDir,
        mode: 'cli',
      });
      endInstance(db, inst.id, { status: 'stale' });
      recordProcess(db, { klaudeSessionId: session.id, instanceId: inst.id, pid: sleeper.pid!, kind: 'claude' });
    } finally {
      db.close();
    }
    const { code, text } = await doctor(h);
    expect(code).toBe(1);
    expect(line(text, 'leftover processes')).toMatch(
      new RegExp(`^✗ leftover processes +running without their owner: pid ${sleeper.pid} \\(claude of session`),
    );
    expect(text).toContain(`fix: klaude sessions ends them (or: kill ${sleeper.pid})`);
  });
});

describe('the run directory check, judged as another uid', () => {
  // Without root a test cannot give a directory to someone else: here the directory is really
  // ours, and the check is told it runs as another uid. The same comparison, from the other side.
  it('is ✗ when the directory is not the given uid’s', async () => {
    const h = await healthyHome();
    const me = process.getuid?.() ?? 0;
    const r = checkRunDir(h.klaudeHome, h.env, me + 1);
    expect(r).toMatchObject({ check: 'run directory', ok: false, level: 'error' });
    expect(r.detail).toBe(`${runDir(h.klaudeHome, h.env)} belongs to another user (uid ${me}, you are ${me + 1})`);
    expect(checkRunDir(h.klaudeHome, h.env, me)).toMatchObject({ ok: true, level: 'ok' });
  });
});

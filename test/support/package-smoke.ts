// The package as a person gets it: `npm pack` (prepack builds dist/), the tarball's contents
// checked against what klaude loads, `npm install -g --prefix <tmp> ./klaude-<v>.tgz` (npm builds
// better-sqlite3 and node-pty as for any install), then klaude run from that prefix only — PATH is
// the prefix's bin, node's directory and the system's, the project and homes are temp directories,
// nothing resolves from this clone — against the Messages-API stand-in and the real claude:
// `--version`, `doctor`, an agent that finishes, `__complete` naming it, `klaude web` serving
// its page and the agent, and `klaude ui` drawing it in a terminal. Each step names what it proves; a file or dependency missing from the
// tarball fails one of them.
//
//   npm run test:package                      # pack this clone, install, check
//   npm run test:package -- --tarball X.tgz   # check a tarball made elsewhere (CI packs once)
//   npm run test:package -- --keep            # leave the temp prefix and homes for a look
//   npm run test:package -- --installed <prefix>  # only the checks, against a prefix kept earlier
//
// npm runs with the person's own config and caches (registry, proxy, node-gyp's headers): only
// klaude's HOME and KLAUDE_HOME are temporary.
import { spawn } from 'node:child_process';
import * as pty from 'node-pty';
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SHIPPED_FILES } from '../../src/doctor/install-checks.js';
import { CLAUDE_BIN } from './claude-bin.js';
import { REPO_ROOT } from './klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from './mock-anthropic.js';
import { killLeftRuntimes, killProcessesOfHome } from './runtime-cleanup.js';
import { makeTempHome, type TempHome } from './temp-home.js';
import { http } from './web-client.js';

interface Ran {
  code: number | null;
  out: string;
}

/** Run a program to its end (bounded), output collected. */
function run(
  file: string,
  args: string[],
  o: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<Ran> {
  return new Promise((resolve) => {
    const child = spawn(file, args, { cwd: o.cwd, env: o.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (out += c.toString('utf8')));
    const timer = setTimeout(() => {
      out += `\n(killed after ${o.timeoutMs} ms)`;
      child.kill('SIGKILL');
    }, o.timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, out: `${out}${e.message}` });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

class SmokeFailure extends Error {}

function check(ok: boolean, what: string, output = ''): void {
  if (!ok) throw new SmokeFailure(`${what}${output ? `\n--- output ---\n${output.trimEnd()}\n---` : ''}`);
}

async function step<T>(name: string, fn: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  process.stdout.write(`package-smoke: ${name} … `);
  const r = await fn();
  process.stdout.write(`ok (${((Date.now() - t0) / 1000).toFixed(1)} s)\n`);
  return r;
}

function argValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i === -1 ? undefined : process.argv[i + 1];
}

async function pack(dest: string): Promise<string> {
  const r = await run('npm', ['pack', '--json', '--pack-destination', dest], { cwd: REPO_ROOT, timeoutMs: 300_000 });
  check(r.code === 0, 'npm pack failed', r.out);
  const json = r.out.slice(r.out.indexOf('\n[') + 1);
  const [info] = JSON.parse(json) as { filename: string }[];
  return path.join(dest, info!.filename);
}

/** The tarball holds what klaude loads (and every migration), and nothing of the clone besides. */
async function checkContents(tarball: string, work: string): Promise<{ version: string }> {
  const r = await run('tar', ['-tzf', tarball], { cwd: work, timeoutMs: 60_000 });
  check(r.code === 0, `cannot list ${tarball}`, r.out);
  const files = r.out
    .split('\n')
    .filter(Boolean)
    .map((f) => f.replace(/^package\//, ''));
  const allowed =
    /^(package\.json|README\.md|LICENSE(\.\w+)?|dist\/.+|drizzle\/[^/]+\.sql|drizzle\/meta\/_journal\.json)$/;
  const stray = files.filter((f) => !allowed.test(f));
  check(stray.length === 0, `the tarball ships files it should not: ${stray.slice(0, 10).join(', ')}`);
  const journal = JSON.parse(readFileSync(path.join(REPO_ROOT, 'drizzle/meta/_journal.json'), 'utf8')) as {
    entries: { tag: string }[];
  };
  const wanted = [
    ...SHIPPED_FILES,
    'package.json',
    'README.md',
    'dist/web/xterm.css',
    'dist/web/app.css',
    ...journal.entries.map((e) => `drizzle/${e.tag}.sql`),
  ];
  const missing = wanted.filter((f) => !files.includes(f));
  check(missing.length === 0, `the tarball lacks ${missing.join(', ')}`);
  const bundles = await launcherBundles(tarball, work);
  const absent = bundles.filter((f) => !files.includes(f));
  check(absent.length === 0, `dist/cli.js routes to bundles the tarball lacks: ${absent.join(', ')}`);
  const x = await run('tar', ['-xzOf', tarball, 'package/package.json'], { cwd: work, timeoutMs: 60_000 });
  const pkg = JSON.parse(x.out) as { version: string; bin?: Record<string, string> };
  check(pkg.bin?.klaude === 'dist/cli.js', `the packed package.json's bin is ${JSON.stringify(pkg.bin)}`);
  return { version: pkg.version };
}

/** Every bundle the tarball's dist/cli.js can run (its tables, scripts/launcher.cjs). */
async function launcherBundles(tarball: string, work: string): Promise<string[]> {
  const r = await run('tar', ['-xzOf', tarball, 'package/dist/cli.js'], { cwd: work, timeoutMs: 60_000 });
  const table = (name: string): unknown => {
    const m = new RegExp(`^const ${name} = (.+);$`, 'm').exec(r.out);
    check(m !== null, `dist/cli.js has no ${name} table`, r.out.slice(0, 2000));
    return JSON.parse(m![1]!);
  };
  const esm = table('ESM') as string[];
  const names = new Set([
    ...Object.keys(table('HASHES') as object),
    ...Object.values(table('ROUTES') as Record<string, string>),
    table('ROOT') as string,
  ]);
  return [...names].map((n) => `dist/cmd/${n}.${esm.includes(n) ? 'mjs' : 'cjs'}`);
}

/** The installed klaude, run as a person would: by name, from the prefix's bin. */
function installedEnv(prefix: string, h: TempHome): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...h.env,
    PATH: [path.join(prefix, 'bin'), path.dirname(process.execPath), '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
  };
  delete env.NODE_PATH;
  return env;
}

function klaudeRunner(prefix: string, h: TempHome) {
  const env = installedEnv(prefix, h);
  return (args: string[], timeoutMs = 120_000): Promise<Ran> =>
    run('klaude', args, { cwd: h.projectDir, env, timeoutMs });
}

/** `klaude ui` in a terminal (a PTY): its first frame shows the agent; q leaves with 0. */
async function checkDashboard(prefix: string, h: TempHome, sessionId: string): Promise<void> {
  const term = pty.spawn(path.join(prefix, 'bin', 'klaude'), ['ui'], {
    name: 'xterm-256color',
    cols: 120,
    rows: 34,
    cwd: h.projectDir,
    env: installedEnv(prefix, h) as Record<string, string>,
  });
  let screen = '';
  const exited = new Promise<number>((resolve) => term.onExit((e) => resolve(e.exitCode)));
  term.onData((d) => (screen += d));
  const plain = (): string => screen.replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]/g, '');
  const deadline = Date.now() + 60_000;
  while (!(plain().includes(sessionId.slice(-8)) && plain().includes('q quit'))) {
    if (Date.now() > deadline) {
      term.kill();
      check(false, 'the dashboard drew no frame with the agent in it', plain().slice(-2000));
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  term.write('q');
  const code = await Promise.race([exited, new Promise<null>((r) => setTimeout(() => r(null), 30_000))]);
  if (code === null) term.kill();
  check(code === 0, `klaude ui ended with ${code} after q`, plain().slice(-2000));
}

type Klaude = ReturnType<typeof klaudeRunner>;

async function checkDoctor(k: Klaude, root: string): Promise<void> {
  const r = await k(['doctor', '--json'], 120_000);
  let lines: { check: string; level: string; detail: string }[] = [];
  try {
    lines = JSON.parse(r.out) as typeof lines;
  } catch {
    check(false, 'klaude doctor --json printed no JSON', r.out);
  }
  const bad = lines.filter((l) => l.level !== 'ok');
  check(r.code === 0 && bad.length === 0, 'klaude doctor found problems', r.out);
  const install = lines.find((l) => l.check === 'install')?.detail ?? '';
  check(install.includes(`installed package at ${root}`), `doctor's install line names another klaude: ${install}`);
}

async function checkAgent(k: Klaude, mock: MockAnthropic): Promise<string> {
  const r = await k(['start', 'general', 'say hello from the package'], 180_000);
  check(r.code === 0 && r.out.includes('Reply to: say hello from the package'), 'the agent did not finish', r.out);
  check(mock.mainRequests().length > 0, 'the agent made no request to the stand-in');
  const s = await k(['sessions', '--json']);
  const [row] = JSON.parse(s.out) as { id: string; status: string }[];
  check(row?.status === 'done', `the agent's session is not done: ${s.out}`);
  return row!.id;
}

async function checkWeb(k: Klaude, h: TempHome, sessionId: string): Promise<void> {
  const r = await k(['web', '--port', '0', '--json']);
  check(r.code === 0, 'klaude web did not start', r.out);
  const { port } = JSON.parse(r.out) as { port: number };
  try {
    const page = await http(port, 'GET', '/');
    check(page.status === 200 && page.body.includes('<script'), `GET / answered ${page.status}`, page.body);
    // Every file the page names, and the chunks app.js loads later (the terminal's xterm.js).
    const named = [...page.body.matchAll(/(?:src|href)="\/([^"#?]+)"/g)].map((m) => `/${m[1]}`);
    check(
      named.includes('/app.js') && named.includes('/xterm.css'),
      'the page names no /app.js or /xterm.css',
      page.body,
    );
    const app = await http(port, 'GET', '/app.js');
    const chunks = [...app.body.matchAll(/"\.\/([\w-]+\.js)"/g)].map((m) => `/${m[1]}`);
    check(chunks.length > 0, "app.js names no chunk (the terminal's is one)");
    for (const a of new Set([...named, ...chunks])) {
      const f = await http(port, 'GET', a);
      check(f.status === 200 && f.body.length > 0, `GET ${a} answered ${f.status}`);
    }
    const token = readFileSync(path.join(h.klaudeHome, 'web', 'token'), 'utf8').trim();
    const state = await http(port, 'GET', '/api/state', { headers: { authorization: `Bearer ${token}` } });
    check(state.status === 200 && state.body.includes(sessionId), `GET /api/state does not show the agent`, state.body);
  } finally {
    await k(['web', '--stop']);
  }
}

async function checkInstalled(prefix: string, version: string, mock: MockAnthropic, h: TempHome): Promise<void> {
  const root = path.join(prefix, 'lib', 'node_modules', 'klaude');
  const k = klaudeRunner(prefix, h);
  await step('klaude --version', async () => {
    const bin = realpathSync(path.join(prefix, 'bin', 'klaude'));
    check(bin === path.join(root, 'dist', 'cli.js'), `the bin links to ${bin}`);
    const r = await k(['--version']);
    check(r.code === 0 && r.out.trim() === version, `klaude --version printed ${JSON.stringify(r.out)}`);
  });
  await step('klaude doctor (install, claude, hooks probe, database, PTY)', () => checkDoctor(k, root));
  const id = await step('klaude start: an agent against the stand-in finishes', () => checkAgent(k, mock));
  await step('klaude __complete names the agent', async () => {
    const r = await k(['__complete', 'fish', 'logs', '']);
    check(r.code === 0 && r.out.includes(id.slice(-8)), `no ${id.slice(-8)} among the candidates`, r.out);
  });
  await step('klaude web: the page, its assets, the agent in its state', () => checkWeb(k, h, id));
  await step('klaude ui: the first frame shows the agent, q leaves', () => checkDashboard(prefix, h, id));
}

/** Pack (or take --tarball), check its contents, install it into `prefix`; its version. */
async function packAndInstall(work: string, prefix: string): Promise<string> {
  const given = argValue('--tarball');
  const tarball = given ? path.resolve(given) : await step('npm pack (prepack builds dist/)', () => pack(work));
  const { version } = await step(`contents of ${path.basename(tarball)}`, () => checkContents(tarball, work));
  await step(`npm install -g --prefix ${prefix}`, async () => {
    const r = await run('npm', ['install', '-g', '--prefix', prefix, '--no-audit', '--no-fund', tarball], {
      cwd: work,
      timeoutMs: 20 * 60_000,
    });
    check(r.code === 0, 'npm install of the tarball failed', r.out);
  });
  return version;
}

function installedVersion(prefix: string): string {
  const pkg = path.join(path.resolve(prefix), 'lib', 'node_modules', 'klaude', 'package.json');
  return (JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version;
}

async function main(): Promise<number> {
  const keep = process.argv.includes('--keep');
  const work = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-package-')));
  const prefix = path.join(work, 'prefix');
  let mock: MockAnthropic | undefined;
  let h: TempHome | undefined;
  try {
    const installed = argValue('--installed');
    const version = installed ? installedVersion(installed) : await packAndInstall(work, prefix);
    mock = await startMockAnthropic();
    h = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-package-home-' });
    chmodSync(h.klaudeHome, 0o700); // as klaude makes it (doctor checks)
    writeFileSync(
      path.join(h.klaudeHome, 'config.yaml'),
      `claude:\n  binary: ${CLAUDE_BIN}\nnotify:\n  desktop: false\n`,
    );
    await checkInstalled(installed ? path.resolve(installed) : prefix, version, mock, h);
    console.log(`package-smoke: klaude ${version} installs from its tarball and works`);
    return 0;
  } catch (e) {
    process.stdout.write('FAILED\n');
    console.error(`package-smoke: ${e instanceof SmokeFailure ? e.message : String((e as Error)?.stack ?? e)}`);
    if (!keep) console.error('package-smoke: run with --keep to leave the prefix and homes for a look');
    return 1;
  } finally {
    if (h) {
      killLeftRuntimes(h.klaudeHome);
      killProcessesOfHome(h.klaudeHome);
    }
    await mock?.close();
    if (keep) console.log(`package-smoke: kept ${work}${h ? ` and ${h.root}` : ''}`);
    else {
      h?.cleanup();
      rmSync(work, { recursive: true, force: true });
    }
  }
}

process.exitCode = await main();

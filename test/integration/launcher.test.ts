// dist/cli.js and dist/hook.cjs, the launcher (scripts/launcher.cjs, scripts/bundles.mjs): every
// command, hidden command and the hook reaches a bundle that carries it, and the code cache in
// <KLAUDE_HOME>/cache/code is private, named by the bundle's content, used as it is, made anew when
// V8 rejects it, and never needed (a home that is missing or not private runs without it).
import { createHash } from 'node:crypto';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DIRECT_COMMANDS } from '../../src/commands/table/direct.js';
import { COMMANDS } from '../../src/commands/table/registry.js';
import { KLAUDE_CLI, REPO_ROOT, runKlaude } from '../support/klaude-bin.js';
import { runProcess } from '../support/run-process.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const DIST = path.join(REPO_ROOT, 'dist');

let home: TempHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

function setup(): TempHome {
  home = makeTempHome({ prefix: 'klaude-launcher-' });
  return home;
}

interface Tables {
  ROUTES: Record<string, string>;
  ROOT: string;
  ESM: string[];
  HASHES: Record<string, string>;
  ONLY: string | null;
}

/** The tables scripts/bundles.mjs wrote into a launcher. */
function tables(file: string): Tables {
  const text = readFileSync(file, 'utf8');
  const table = (name: string): unknown => JSON.parse(new RegExp(`^const ${name} = (.+);$`, 'm').exec(text)![1]!);
  return {
    ROUTES: table('ROUTES') as Record<string, string>,
    ROOT: table('ROOT') as string,
    ESM: table('ESM') as string[],
    HASHES: table('HASHES') as Record<string, string>,
    ONLY: table('ONLY') as string | null,
  };
}

/**
 * The module a command's `load` (or a direct command) imports, relative to src/, as the build names
 * it. Vitest has rewritten `import('../x.js')` to a path from the repository's root, `/src/…/x.ts`.
 */
function moduleOf(fn: unknown): string {
  const m = /["'](\/src\/[^"']+\.tsx?|\.\.?\/[^"']+)["']/.exec(String(fn));
  if (!m) throw new Error(`no import in ${String(fn)}`);
  if (m[1]!.startsWith('/src/')) return m[1]!.slice('/src/'.length);
  const abs = path.resolve(REPO_ROOT, 'src', 'commands', 'table', m[1]!.replace(/\.js$/, ''));
  return path.relative(path.join(REPO_ROOT, 'src'), abs) + (existsSync(`${abs}.ts`) ? '.ts' : '.tsx');
}

const cacheDir = (h: TempHome): string => path.join(h.klaudeHome, 'cache', 'code');
const cacheFile = (h: TempHome, bundle: string, hash: string): string =>
  path.join(cacheDir(h), `${bundle}.${hash}.${process.version}-${process.arch}.cache`);
const mode = (f: string): number => statSync(f).mode & 0o777;

describe('the launcher routes', () => {
  it('every command, hidden command and the hook to a bundle that carries it', () => {
    const t = tables(KLAUDE_CLI);
    const words = new Map<string, string>();
    for (const c of COMMANDS) words.set(c.name, moduleOf(c.load));
    for (const [word, fn] of Object.entries(DIRECT_COMMANDS)) words.set(word, moduleOf(fn));
    expect([...words.keys()]).toEqual(
      expect.arrayContaining(['', 'sessions', 'status', 'hook', '__complete', '__zone-link', '__zone-serve', '__reap']),
    );
    const esmText = (): string =>
      [
        path.join(DIST, 'cmd', `${t.ESM[0]}.mjs`),
        ...readdirSync(path.join(DIST, 'chunks')).map((f) => path.join(DIST, 'chunks', f)),
      ]
        .filter((f) => f.endsWith('.mjs'))
        .map((f) => readFileSync(f, 'utf8'))
        .join('\n');
    for (const [word, mod] of words) {
      const bundle = word === '' ? t.ROOT : t.ROUTES[word];
      expect(bundle, `klaude ${word}`).toBeDefined();
      const esm = t.ESM.includes(bundle!);
      const file = path.join(DIST, 'cmd', `${bundle}.${esm ? 'mjs' : 'cjs'}`);
      expect(existsSync(file), file).toBe(true);
      const text = esm ? esmText() : readFileSync(file, 'utf8');
      expect(text, `klaude ${word} → ${bundle} carries ${mod}`).not.toContain(`does not carry ${mod}`);
      if (!esm) expect(t.HASHES[bundle!], bundle).toBe(createHash('sha256').update(text).digest('hex').slice(0, 16));
    }
    // The bundle for help and unknown words carries no command at all.
    const main = readFileSync(path.join(DIST, 'cmd', 'main.cjs'), 'utf8');
    for (const mod of new Set(words.values())) expect(main).toContain(`does not carry ${mod}`);
    // dist/hook.cjs always runs the hook's own bundle.
    const hook = tables(path.join(DIST, 'hook.cjs'));
    expect(hook.ONLY).toBe('hook-injected');
    expect(Object.keys(hook.HASHES)).toEqual(['hook-injected']);
  });

  it('runs commands, help, the ES module dashboard, hidden commands and the hook through them', async () => {
    const h = setup();
    const k = (args: string[], env: NodeJS.ProcessEnv = h.env) => runKlaude(args, { env, cwd: h.projectDir });
    const version = await k(['--version']);
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    const sessions = await k(['sessions', '--json']);
    expect([sessions.code, sessions.stdout.trim()]).toEqual([0, '[]']);
    expect((await k(['status'])).code).toBe(0);
    expect((await k(['help', 'sessions'])).stdout).toContain('klaude sessions');
    expect((await k(['hook', '--help'])).stdout).toContain('klaude hook <session-start');
    const hook = await k(['hook', 'post-tool-use']); // outside klaude: records nothing, says nothing
    expect([hook.code, hook.stdout, hook.stderr]).toEqual([0, '', '']);
    expect((await k(['ui', '--help'])).stdout).toContain('klaude ui');
    const complete = await k(['__complete', 'fish', 'ses']);
    expect(complete.stdout).toMatch(/^words\nsessions\t/);
    const unknown = await k(['frobnicate']);
    expect([unknown.code, unknown.stderr]).toEqual([2, expect.stringContaining('[E_UNKNOWN_COMMAND]')]);
  });
});

describe('the code cache', () => {
  it('is written 0600 in a 0700 <home>/cache/code, named by the bundle content and node, then used as it is', async () => {
    const h = setup();
    const { HASHES } = tables(KLAUDE_CLI);
    expect((await runKlaude(['sessions'], { env: h.env, cwd: h.projectDir })).code).toBe(0);
    const file = cacheFile(h, 'sessions', HASHES.sessions!);
    expect(mode(cacheDir(h))).toBe(0o700);
    expect(mode(file)).toBe(0o600);
    const made = statSync(file);
    expect((await runKlaude(['sessions'], { env: h.env, cwd: h.projectDir })).code).toBe(0);
    const after = statSync(file);
    expect([after.ino, after.mtimeMs]).toEqual([made.ino, made.mtimeMs]); // read, not made again
  });

  it('made anew when V8 rejects it; caches of other builds go once old', async () => {
    const h = setup();
    const { HASHES } = tables(KLAUDE_CLI);
    mkdirSync(cacheDir(h), { recursive: true, mode: 0o700 });
    chmodSync(path.join(h.klaudeHome, 'cache'), 0o700);
    const file = cacheFile(h, 'sessions', HASHES.sessions!);
    writeFileSync(file, Buffer.alloc(4096, 7), { mode: 0o600 });
    const old = path.join(cacheDir(h), `sessions.0000000000000000.${process.version}-${process.arch}.cache`);
    const recent = path.join(cacheDir(h), `status.0000000000000000.${process.version}-${process.arch}.cache`);
    for (const f of [old, recent]) writeFileSync(f, 'another build', { mode: 0o600 });
    const month = Date.now() / 1000 - 30 * 24 * 3600;
    utimesSync(old, month, month);
    const r = await runKlaude(['sessions', '--json'], { env: h.env, cwd: h.projectDir });
    expect([r.code, r.stdout.trim()]).toEqual([0, '[]']);
    expect(readFileSync(file).equals(Buffer.alloc(4096, 7))).toBe(false);
    expect([existsSync(old), existsSync(recent)]).toEqual([false, true]);
  });

  it('is neither read nor written in a directory that is not private, and a home it cannot use runs without it', async () => {
    const h = setup();
    mkdirSync(cacheDir(h), { recursive: true });
    chmodSync(cacheDir(h), 0o755);
    expect((await runKlaude(['sessions'], { env: h.env, cwd: h.projectDir })).code).toBe(0);
    expect(readdirSync(cacheDir(h))).toEqual([]);
    // <home>/cache/code is a file
    const other = setup();
    mkdirSync(path.join(other.klaudeHome, 'cache'));
    writeFileSync(cacheDir(other), '');
    expect((await runKlaude(['sessions'], { env: other.env, cwd: other.projectDir })).code).toBe(0);
    // no home at all: `klaude --help` makes none
    const missing = path.join(other.root, 'no-home');
    const help = await runKlaude(['--help'], { env: { ...other.env, KLAUDE_HOME: missing }, cwd: other.projectDir });
    expect(help.code).toBe(0);
    expect(existsSync(missing)).toBe(false);
    // KLAUDE_DEBUG=1: node's own loader, no cache
    const debug = setup();
    const r = await runKlaude(['sessions'], { env: { ...debug.env, KLAUDE_DEBUG: '1' }, cwd: debug.projectDir });
    expect(r.code).toBe(0);
    expect(existsSync(cacheDir(debug))).toBe(false);
  });

  it('serves the injected hook too (dist/hook.cjs)', async () => {
    const h = setup();
    const { HASHES } = tables(path.join(DIST, 'hook.cjs'));
    const r = await runProcess(process.execPath, [path.join(DIST, 'hook.cjs'), 'stop'], {
      env: { ...h.env, KLAUDE_SESSION_ID: '01LAUNCHERTEST000000000000' },
      cwd: h.projectDir,
      input: '',
    });
    expect(r.stderr).toContain('empty payload on stdin');
    expect(existsSync(cacheFile(h, 'hook-injected', HASHES['hook-injected']!))).toBe(true);
  });
});

describe('an install whose path a file URL must escape', () => {
  it('finds its migrations, its SQLite module and its page (import.meta.url of a bundle)', async () => {
    const h = setup();
    const root = path.join(h.root, 'in st#all %41 ü');
    mkdirSync(root);
    for (const part of ['dist', 'drizzle'])
      cpSync(path.join(REPO_ROOT, part), path.join(root, part), { recursive: true });
    cpSync(path.join(REPO_ROOT, 'package.json'), path.join(root, 'package.json'));
    symlinkSync(path.join(REPO_ROOT, 'node_modules'), path.join(root, 'node_modules'));
    const r = await runProcess(process.execPath, [path.join(root, 'dist', 'cli.js'), 'sessions', '--json'], {
      env: h.env,
      cwd: h.projectDir,
    });
    expect([r.code, r.stdout.trim(), r.stderr]).toEqual([0, '[]', '']);
    const doctor = await runProcess(process.execPath, [path.join(root, 'dist', 'cli.js'), 'doctor', '--json'], {
      env: h.env,
      cwd: h.projectDir,
      timeoutMs: 60_000,
    });
    const install = (JSON.parse(doctor.stdout) as { check: string; detail: string }[]).find(
      (l) => l.check === 'install',
    );
    expect(install?.detail).toContain(root);
  });
});

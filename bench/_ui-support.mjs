// Shared by the bench/ui-*.mjs benches: a temp home with a project of sessions (written straight
// into the DB the built CLI created, and their NDJSON logs), and `klaude ui` under a real PTY.
import './_env.mjs';
import { spawnSync } from 'node:child_process';
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  realpathSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/**
 * The built CLI. The dashboard benches run it as a person does (`klaude ui`: the file itself, whose
 * launcher lines exec node with klaude's flags; scripts/build.mjs); command-line benches measured
 * against `node -e 0` run `node dist/cli.js`. BENCH_KLAUDE_CLI runs them against another build (a
 * before/after pair in one run: bench/pair.mjs).
 */
export const cli = process.env.BENCH_KLAUDE_CLI ?? path.join(repo, 'dist', 'cli.js');
const require = createRequire(path.join(repo, 'package.json'));
const pty = require('node-pty');
const { Terminal } = require('@xterm/headless');
const { ulid } = require('ulid');

// eslint-disable-next-line no-control-regex
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])/g;
export const stripAnsi = (s) => s.replace(ANSI, '');

export function claudeBinary() {
  return path.join(path.dirname(require.resolve('@anthropic-ai/claude-code/package.json')), 'bin', 'claude.exe');
}

/**
 * A temp home whose project has `agents` agent sessions (status `status`), each with a short log;
 * the last one created is the newest root, so the dashboard selects it first. They are `ageMs` old
 * (default three days): an age on screen that reads in seconds redraws once a second by design,
 * in minutes once a minute; days old, an idle dashboard has nothing to redraw in a bench's window.
 */
export function makeUiHome({ agents = 10, status = 'running', ageMs = 3 * 86_400_000 } = {}) {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-bench-ui-')));
  const home = path.join(root, 'klaude');
  const project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  mkdirSync(path.join(root, 'home'), { recursive: true });
  const env = { ...process.env, HOME: path.join(root, 'home'), KLAUDE_HOME: home, TERM: 'xterm-256color' };
  for (const k of Object.keys(env)) if ((k.startsWith('KLAUDE_') && k !== 'KLAUDE_HOME') || k === 'CI') delete env[k];
  const made = spawnSync(process.execPath, [cli, 'instances'], { cwd: project, env, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`klaude instances failed: ${made.stderr}`);
  writeFileSync(path.join(home, 'config.yaml'), `claude:\n  binary: ${claudeBinary()}\n`);
  const hash = createHash('sha256').update(realpathSync(project)).digest('hex').slice(0, 24);
  const Database = require('better-sqlite3');
  const db = new Database(path.join(home, 'sessions.db'));
  db.prepare('INSERT OR IGNORE INTO projects (id, root_path) VALUES (?, ?)').run(hash, realpathSync(project));
  const insert = db.prepare(
    'INSERT INTO sessions (id, project_id, type, runtime, status, prompt, log_path, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)',
  );
  const sessions = [];
  const now = Date.now() - ageMs;
  for (let i = 0; i < agents; i++) {
    const id = ulid();
    const logPath = path.join(home, 'projects', hash, 'logs', `${id}.ndjson`);
    mkdirSync(path.dirname(logPath), { recursive: true });
    const t = now - (agents - i) * 1000;
    insert.run(id, hash, `agent-${i}`, 'claude', status, `task ${i}`, logPath, t, t);
    appendFileSync(
      logPath,
      [
        { ts: t, type: 'user', text: `task ${i}`, source: 'start' },
        { ts: t + 1, type: 'tool_call', id: 'a', name: 'Bash', summary: 'npm test' },
        { ts: t + 2, type: 'tool_result', id: 'a', isError: false, output: 'ok\n12 passed' },
        { ts: t + 3, type: 'text', text: `working on task ${i}` },
      ]
        .map((e) => `${JSON.stringify(e)}\n`)
        .join(''),
    );
    sessions.push({ id, logPath });
  }
  db.close();
  return { root, home, project, env, hash, sessions, cleanup: () => rmSync(root, { recursive: true, force: true }) };
}

/** What claude needs to start straight at its prompt in a temp HOME (as test/support/temp-home.ts). */
export function prepareClaudeHome(h) {
  const apiKey = 'sk-ant-api03-klaude-bench-key-0000000000000000-AAAA';
  const home = h.env.HOME;
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  const trusted = {
    hasTrustDialogAccepted: true,
    hasCompletedProjectOnboarding: true,
    projectOnboardingSeenCount: 1,
    allowedTools: [],
  };
  writeFileSync(
    path.join(home, '.claude.json'),
    JSON.stringify({
      hasCompletedOnboarding: true,
      lastOnboardingVersion: '2.1.197',
      theme: 'dark',
      numStartups: 1,
      lastReleaseNotesSeen: '2.1.197',
      customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] },
      projects: { [h.project]: trusted },
    }),
  );
  for (const k of Object.keys(h.env))
    if (k.startsWith('ANTHROPIC_') || k.startsWith('CLAUDE_CODE_') || k === 'CLAUDECODE') delete h.env[k];
  Object.assign(h.env, {
    ANTHROPIC_API_KEY: apiKey,
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
  });
}

/**
 * Spawn a command under a PTY; `waitFor(re)` resolves with ms since spawn when the (ANSI-stripped)
 * output matches, or the screen does: the output is also fed to a headless terminal, since a
 * program that draws only the cells that changed (the dashboard) may never write a text whole.
 * A match on the screen counts from when the output that made it arrived.
 */
export function spawnTerm(file, args, { cwd, env, cols = 120, rows = 34 }) {
  if (process.env.BENCH_UI_PROF && file === cli && args[0] === 'ui') [file, args] = profiled(args);
  const t0 = process.hrtime.bigint();
  const p = pty.spawn(file, args, { name: 'xterm-256color', cols, rows, cwd, env });
  const term = new Terminal({ cols, rows, scrollback: 0, allowProposedApi: true, logLevel: 'off' });
  const screenText = () => {
    const b = term.buffer.active;
    const out = [];
    for (let y = 0; y < term.rows; y++) out.push(b.getLine(b.viewportY + y)?.translateToString(true) ?? '');
    return out.join('\n');
  };
  let raw = '';
  let waiters = [];
  let exited = false;
  const exit = new Promise((resolve) =>
    p.onExit((e) => {
      exited = true;
      term.dispose();
      resolve(e);
    }),
  );
  /** Where each chunk of output ended in `raw` (a stream replayed as it came: bench/ui-preview-replay.mjs). */
  const ends = [];
  p.onData((d) => {
    raw += d;
    ends.push(raw.length);
    const now = process.hrtime.bigint();
    for (const w of [...waiters]) w(now, false);
    if (!exited) term.write(d, () => waiters.forEach((w) => w(now, true)));
  });
  return {
    pid: p.pid,
    write: (s) => p.write(s),
    raw: () => raw,
    /** The output from `offset` on, in the chunks it came in. */
    chunks: (offset = 0) => ends.filter((e) => e > offset).map((e, i, a) => raw.slice(i === 0 ? offset : a[i - 1], e)),
    /** Resolves with the elapsed ms (since spawn, or since `from` in hrtime ns) when `re` shows up in output after `offset`. */
    waitFor(re, { offset = 0, from = t0, timeoutMs = 20_000 } = {}) {
      return new Promise((resolve, reject) => {
        const check = (now, parsed) => {
          if (re.test(stripAnsi(raw.slice(offset))) || (parsed && re.test(screenText()))) {
            done();
            resolve(Number(now - from) / 1e6);
          }
        };
        const timer = setTimeout(() => {
          done();
          reject(new Error(`timed out waiting for ${re}; output:\n${stripAnsi(raw).slice(-2000)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters = waiters.filter((w) => w !== check);
        };
        waiters.push(check);
        check(process.hrtime.bigint(), false);
      });
    },
    async stop(signal = 'SIGTERM') {
      if (!exited) p.kill(signal);
      await Promise.race([exit, new Promise((r) => setTimeout(r, 5000))]);
    },
  };
}

/**
 * BENCH_UI_PROF=<dir>: the dashboard writes a V8 CPU profile there when it exits (open it in Chrome's
 * DevTools, or summarise it with scripts/cpu-profile.mjs). BENCH_UI_PROF_US sets the sampling
 * interval (µs, default 250), BENCH_UI_NODE_FLAGS more node flags. Profiling costs CPU of its own: figures taken with it are not the figures.
 */
function profiled(args) {
  const dir = path.resolve(process.env.BENCH_UI_PROF);
  mkdirSync(dir, { recursive: true });
  // The launcher's own flags (its second line: exec node <flags> "$0"), then the profiler's.
  const launch = /exec node (.*?) "\$0"/.exec(readFileSync(cli, 'utf8').split('\n')[1] ?? '')?.[1].split(' ') ?? [];
  const us = Number(process.env.BENCH_UI_PROF_US ?? 250);
  // More node flags for the profiled dashboard (e.g. `--require <a script starting a heap sampler>`).
  const extra = (process.env.BENCH_UI_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  return [
    process.execPath,
    [...launch, ...extra, '--cpu-prof', `--cpu-prof-dir=${dir}`, `--cpu-prof-interval=${us}`, cli, ...args],
  ];
}

/** utime + stime of a process in clock ticks (Linux /proc). */
export function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** utime + stime of each thread of a process, by thread name (/proc/<pid>/task/<tid>/comm), and stime apart. */
export function threadTicks(pid) {
  const out = {};
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out[name] = (out[name] ?? 0) + Number(f[11]) + Number(f[12]);
      out[`${name} (system)`] = (out[`${name} (system)`] ?? 0) + Number(f[12]);
    } catch {
      /* the thread ended */
    }
  }
  return out;
}

/** Ticks by thread between two threadTicks() readings, as "name n" (largest first). */
export function threadDelta(a, b) {
  return Object.entries(b)
    .map(([k, v]) => [k, v - (a[k] ?? 0)])
    .filter(([, v]) => v > 0)
    .sort((x, y) => y[1] - x[1])
    .map(([k, v]) => `${k} ${v}`)
    .join(', ');
}

export function rssMiB(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

export const CLK_TCK = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim()) || 100;

export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p90: q(0.9), min: s[0] };
}

export const fmt = (n, d = 1) => n.toFixed(d);
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The first-frame floor: Ink's hello world bundled like dist/cli.js (esbuild, production React). Returns its path. */
export async function buildInkHello(dir) {
  const entry = path.join(dir, 'hello.mjs');
  writeFileSync(
    entry,
    "import React from 'react';\nimport { render, Text } from 'ink';\nrender(React.createElement(Text, null, 'hello world'));\n",
  );
  await build({
    entryPoints: [entry],
    outdir: path.join(dir, 'out'),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    minifySyntax: true,
    nodePaths: [path.join(repo, 'node_modules')],
    external: ['react-devtools-core'],
    define: { 'process.env.NODE_ENV': '"production"' },
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
    logLevel: 'warning',
  });
  return path.join(dir, 'out', 'hello.js');
}

/** What the dashboard says it drew (KLAUDE_UI_STATS, written as it closes). */
export function drawn(file) {
  try {
    const s = JSON.parse(readFileSync(file, 'utf8'));
    const r = Object.entries(s.renders)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ');
    return `${s.inkFrames} Ink frames, ${s.previewFrames ?? '?'} preview frames, ${s.flushes ?? '?'} flushes, ${s.writes} writes (${s.bytes} bytes), ${s.scrolls} scrolled by the terminal, ${s.clockPaints ?? '?'} clock ticks drawn without a frame; renders: ${r}`;
  } catch {
    return 'no figures (a build without KLAUDE_UI_STATS)';
  }
}

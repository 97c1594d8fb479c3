// A command that reads every agent definition (`klaude agents --json`) with 20 and with 150 agent
// files, each against its floor, `node -e 0`, and the two against each other (docs/ARCHITECTURE.md,
// Performance budget: 150 files cost what 20 do, goal ≤ 1.2×). The YAML parse cache
// (src/config/parse-cache.ts) has to hold them all: with one too small every file missed and
// every miss rewrote the cache (70 files: 2.1× the time of 20).
// Runs are interleaved (floor, 20, 150, floor, …) so machine noise hits all alike.
//   node bench/agent-files.mjs        (after `npm run build`; BENCH_N=60 for more runs, BENCH_KEEP=1;
//                                      BENCH_KLAUDE_CLI=<other>/dist/cli.js runs another build: bench/pair.mjs)
import './_env.mjs';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = process.env.BENCH_KLAUDE_CLI ?? path.join(repo, 'dist', 'cli.js');
const N = Number(process.env.BENCH_N ?? 30);
const WARMUP = 3;
const GOAL = 1.2;

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-bench-agents-')));
try {
  const env = { PATH: process.env.PATH, HOME: root, KLAUDE_HOME: path.join(root, 'klaude'), LANG: 'C.UTF-8' };
  /** A project with `n` agent definitions, each with the fields people write. */
  const project = (n) => {
    const dir = path.join(root, `p${n}`);
    const agents = path.join(dir, '.claude', 'agents');
    mkdirSync(agents, { recursive: true });
    for (let i = 0; i < n; i++) {
      writeFileSync(
        path.join(agents, `agent-${i}.md`),
        [
          '---',
          `name: agent-${i}`,
          `description: Reviews the module ${i} for correctness, style and missing tests; reports findings`,
          'model: sonnet',
          'tools: [Read, Grep, Glob, "Bash(npm test:*)"]',
          'color: blue',
          '---',
          `You review module ${i}. Read it fully, run its tests, and list each problem with a file and line.`,
          '',
        ].join('\n'),
      );
    }
    return dir;
  };
  const p20 = project(20);
  const p150 = project(150);

  const time = (args, cwd) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, out: r.stdout.toString() };
  };
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { median: q(0.5), p90: q(0.9) };
  };
  const fmt = (n) => n.toFixed(1);

  const count = (cwd) => JSON.parse(time([cli, 'agents', '--json'], cwd).out).agents.length;
  if (count(p20) !== 21 || count(p150) !== 151) throw new Error('the projects do not list their agents');
  const cacheFile = path.join(env.KLAUDE_HOME, 'cache', 'parsed.json');
  const cacheBytes = statSync(cacheFile).size;

  const floor = [];
  const a20 = [];
  const a150 = [];
  for (let i = 0; i < N + WARMUP; i++) {
    const f = time(['-e', '0'], root).ms;
    const x = time([cli, 'agents', '--json'], p20).ms;
    const y = time([cli, 'agents', '--json'], p150).ms;
    if (i >= WARMUP) {
      floor.push(f);
      a20.push(x);
      a150.push(y);
    }
  }
  const f = stats(floor);
  const s20 = stats(a20);
  const s150 = stats(a150);
  const line = (label, s) =>
    `${label}: median ${fmt(s.median)} ms (p90 ${fmt(s.p90)}) vs node -e 0 ${fmt(f.median)} ms → ${(s.median / f.median).toFixed(2)}×`;
  console.log(line('agents --json, 20 agent files', s20));
  console.log(line('agents --json, 150 agent files', s150));
  const ratio = s150.median / s20.median;
  console.log(
    `150 agent files vs 20: ${ratio.toFixed(2)}× (goal ≤ ${GOAL}×${ratio <= GOAL ? ', met' : ', MISSED'}; parse cache ${(cacheBytes / 1024).toFixed(0)} KiB; n=${N})`,
  );
} finally {
  if (process.env.BENCH_KEEP)
    console.log(`kept ${root} (KLAUDE_HOME=${root}/klaude HOME=${root}, projects ${root}/p20, ${root}/p150)`);
  else rmSync(root, { recursive: true, force: true });
}

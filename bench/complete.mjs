// `klaude __complete` (what the shell completion scripts run on every Tab) against its floor,
// `node -e 0` (docs/ARCHITECTURE.md, Performance budget). Three lines a person Tabs: a command name
// and a flag (goal ≤ 2×: the command table only, loaded by cli.js anyway), and session ids in a
// project with 300 sessions (goal ≤ 3×: SQLite's addon and the drizzle-free connection load too,
// the work `node dist/cli.js hook` does, which measures 2.5–2.9× beside hook.cjs's 1.2–1.5×). Each also through the bin as the shell runs it (`dist/cli.js`
// executed: sh, then node with the launcher's flags). Runs are interleaved so noise hits all alike.
//   node bench/complete.mjs        (after `npm run build`; BENCH_N=60 for more runs)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repo, 'dist', 'cli.js');
const N = Number(process.env.BENCH_N ?? 40);
const WARMUP = 3;
const SESSIONS = 300;

const root = mkdtempSync(path.join(tmpdir(), 'klaude-bench-complete-'));
try {
  const home = path.join(root, 'klaude');
  const project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  // A clean env for floor and klaude alike (NODE_EXTRA_CA_CERTS alone would slow every node start).
  const env = { PATH: process.env.PATH, HOME: root, KLAUDE_HOME: home, LANG: process.env.LANG ?? 'C.UTF-8' };
  const made = spawnSync(process.execPath, [cli, 'instances'], { cwd: project, env, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`klaude instances failed: ${made.stderr}`);
  const Database = createRequire(path.join(repo, 'package.json'))('better-sqlite3');
  const db = new Database(path.join(home, 'sessions.db'));
  // The project row as klaude makes it: its id is the hash of the project's real path (config/paths.ts).
  const projectId = createHash('sha256').update(realpathSync(project)).digest('hex').slice(0, 24);
  db.prepare('INSERT INTO projects (id, root_path) VALUES (?, ?)').run(projectId, realpathSync(project));
  const insert = db.prepare(
    "INSERT INTO sessions (id, project_id, type, runtime, status, title, created_at, updated_at) VALUES (?, ?, 'general', 'claude', ?, ?, ?, ?)",
  );
  const now = Date.now();
  for (let i = 0; i < SESSIONS; i++) {
    const id = `01BENCH${String(i).padStart(11, '0')}${String(i).padStart(8, '0')}`;
    insert.run(id, projectId, i % 10 === 0 ? 'running' : 'done', `task number ${i}`, now - i * 1000, now - i * 1000);
  }
  db.close();

  const cases = {
    command: ['ch', 'klaude ch'],
    flag: ['--fo', 'klaude logs 7XQ2 --fo'],
    'session ids': ['', 'klaude logs '],
  };
  const run = (file, args) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(file, args, { cwd: project, env, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    return { ms, out: r.stdout };
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(0.9 * xs.length))];
  const fmt = (n) => n.toFixed(1);

  for (const [name, [cur, line]] of Object.entries(cases)) {
    const floor = [];
    const viaNode = [];
    const viaBin = [];
    let out = '';
    for (let i = 0; i < N + WARMUP; i++) {
      const f = run(process.execPath, ['-e', '0']);
      const k = run(process.execPath, [cli, '__complete', 'bash', cur, line]);
      const b = run(cli, ['__complete', 'bash', cur, line]);
      out = k.out;
      if (i >= WARMUP) {
        floor.push(f.ms);
        viaNode.push(k.ms);
        viaBin.push(b.ms);
      }
    }
    // The timings only count if it answered.
    const lines = out.trimEnd().split('\n');
    const want = name === 'session ids' ? 200 : 1;
    if (lines[0] !== 'words' || lines.length - 1 < want)
      throw new Error(`__complete ${line}: ${lines.length - 1} candidates, expected ${want}+`);
    const ratio = median(viaNode) / median(floor);
    const goal = name === 'session ids' ? 3 : 2;
    console.log(
      `complete ${name}: ${fmt(median(viaNode))} ms (p90 ${fmt(p90(viaNode))}) vs node -e 0 ${fmt(median(floor))} ms → ${ratio.toFixed(2)}× ` +
        `(goal ≤ ${goal}×${ratio <= goal ? ', met' : ', MISSED'}); via the bin ${fmt(median(viaBin))} ms → ${(median(viaBin) / median(floor)).toFixed(2)}×; ` +
        `${lines.length - 1} candidates; n=${N}`,
    );
  }
} finally {
  rmSync(root, { recursive: true, force: true });
}

// `klaude sessions` over 1,000 sessions against its floor, `node -e 0` (docs/ARCHITECTURE.md, Performance budget: goal ≤ 1.5×).
// The home is seeded with raw SQL: 100 root TUI sessions, each with 9 sub-agents nested up to three
// deep, a few with live-looking process rows (pid of this bench, so reconcile finds nothing dead).
// Runs are interleaved (floor, sessions, floor, …) so machine noise hits both alike.
//   node bench/sessions.mjs          (after `npm run build`; BENCH_N=60 for more runs, BENCH_SESSIONS=5000,
//                                     BENCH_KEEP=1 keeps the seeded home for profiling)
import './_env.mjs';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, realpathSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repo, 'dist', 'cli.js');
const N = Number(process.env.BENCH_N ?? 40);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 1000);
const WARMUP = 3;

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-bench-sessions-')));
try {
  const home = path.join(root, 'klaude');
  const project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  const env = { ...process.env, HOME: root, KLAUDE_HOME: home };
  for (const k of Object.keys(env)) if (k.startsWith('KLAUDE_') && k !== 'KLAUDE_HOME') delete env[k];

  // Create and migrate the DB the normal way, then seed it.
  const made = spawnSync(process.execPath, [cli, 'sessions'], { cwd: project, env, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`klaude sessions failed: ${made.stderr}`);
  const hash = createHash('sha256').update(project).digest('hex').slice(0, 24);
  const Database = createRequire(path.join(repo, 'package.json'))('better-sqlite3');
  const db = new Database(path.join(home, 'sessions.db'));
  db.prepare('INSERT INTO projects (id, root_path) VALUES (?, ?)').run(hash, project);
  const insert = db.prepare(
    `INSERT INTO sessions (id, project_id, parent_id, type, runtime, status, prompt, last_text, native_session_id,
       log_path, cost_usd, created_at, updated_at, ended_at)
     VALUES (?, ?, ?, ?, 'claude', ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const proc = db.prepare(
    "INSERT INTO runtime_process (klaude_session_id, pid, kind, is_current, started_at) VALUES (?, ?, 'runtime', 1, ?)",
  );
  const statuses = ['done', 'running', 'idle', 'failed', 'interrupted', 'waiting'];
  const types = ['explore', 'coder', 'reviewer', 'tester'];
  const now = Date.now();
  const id = (i) => `01BENCH${String(i).padStart(19, '0')}`;
  db.transaction(() => {
    let parents = [];
    for (let i = 0; i < SESSIONS; i++) {
      const isRoot = i % 10 === 0;
      if (isRoot) parents = [];
      const parent = isRoot ? null : (parents[Math.min(parents.length - 1, (i % 10) % 3)] ?? null);
      const status = isRoot ? 'idle' : statuses[i % statuses.length];
      const created = now - (SESSIONS - i) * 60_000;
      insert.run(
        id(i),
        hash,
        parent,
        isRoot ? 'tui' : types[i % types.length],
        status,
        `task number ${i}: look into the flaky test in src/module-${i}.ts and report what is wrong with it`,
        `Finished task ${i}. The test waits on a timer that never fires under load; I replaced it with an event.`,
        `4a234254-0000-4000-8000-${String(i).padStart(12, '0')}`,
        path.join(home, 'projects', hash, 'logs', `${id(i)}.ndjson`),
        0.0123 * (i % 7),
        created,
        created + 30_000,
        ['done', 'failed', 'interrupted'].includes(status) ? created + 30_000 : null,
      );
      if (status === 'running' || status === 'waiting') proc.run(id(i), process.pid, created);
      parents.push(id(i));
    }
  })();
  db.close();

  const time = (args) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 1024 * 1024,
    });
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

  const check = time([cli, 'sessions']).out.trimEnd().split('\n');
  if (check.length !== SESSIONS + 1) throw new Error(`expected ${SESSIONS + 1} lines, got ${check.length}`);

  for (const [label, args] of [
    ['sessions', [cli, 'sessions']],
    ['sessions -v', [cli, 'sessions', '-v']],
    ['sessions --json', [cli, 'sessions', '--json']],
  ]) {
    const floor = [];
    const cmd = [];
    for (let i = 0; i < N + WARMUP; i++) {
      const f = time(['-e', '0']).ms;
      const c = time(args).ms;
      if (i >= WARMUP) {
        floor.push(f);
        cmd.push(c);
      }
    }
    const a = stats(floor);
    const b = stats(cmd);
    const ratio = b.median / a.median;
    console.log(
      `${label} (${SESSIONS} sessions): median ${fmt(b.median)} ms (p90 ${fmt(b.p90)}) vs node -e 0 ${fmt(a.median)} ms (p90 ${fmt(a.p90)}) → ${ratio.toFixed(2)}× (goal ≤ 1.5×${ratio <= 1.5 ? ', met' : ', MISSED'}; n=${N})`,
    );
  }
} finally {
  if (process.env.BENCH_KEEP)
    console.log(`kept ${root} (KLAUDE_HOME=${root}/klaude HOME=${root}, cwd ${root}/project)`);
  else rmSync(root, { recursive: true, force: true });
}

// `klaude hook <event>` against its floor, `node -e 0` (docs/ARCHITECTURE.md, Performance budget: goal ≤ 1.15×).
// Claude Code waits on the hook after every tool call, so this is klaude's hottest path.
// Two routes: the command klaude injects (`node --preserve-symlinks-main dist/hook.cjs <event>`, the goal applies to
// it) and the public `node dist/cli.js hook <event>`. Runs are interleaved (floor, injected,
// cli, floor, …) so machine noise hits all alike.
//   node bench/hook.mjs            (after `npm run build`; BENCH_N=60 for more runs, BENCH_KEEP=1 keeps the
//                                   home and the payloads for profiling)
import './_env.mjs';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repo, 'dist', 'cli.js');
const hookEntry = path.join(repo, 'dist', 'hook.cjs');
/** The node options klaude injects before dist/hook.cjs (HOOK_NODE_OPTIONS, src/hooks/settings.ts). */
const HOOK_NODE_OPTIONS = ['--preserve-symlinks-main'];
const N = Number(process.env.BENCH_N ?? 40);
const WARMUP = 3;

const root = mkdtempSync(path.join(tmpdir(), 'klaude-bench-hook-'));
try {
  const home = path.join(root, 'klaude');
  const project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  // A clean env for floor and hook alike: NODE_EXTRA_CA_CERTS alone (set on some machines) makes
  // every node start load a CA bundle, tens of ms that would flatter the ratio.
  const baseEnv = { PATH: process.env.PATH, HOME: root, KLAUDE_HOME: home, LANG: process.env.LANG ?? 'C.UTF-8' };

  // An existing, migrated DB with the session the hook reports on (the normal case).
  const made = spawnSync(process.execPath, [cli, 'instances'], { cwd: project, env: baseEnv, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`klaude instances failed: ${made.stderr}`);
  const Database = createRequire(path.join(repo, 'package.json'))('better-sqlite3');
  const db = new Database(path.join(home, 'sessions.db'));
  const sessionId = '01BENCHSESSION000000000000';
  const claudeId = '4a234254-0000-4000-8000-000000000001';
  db.prepare('INSERT INTO projects (id, root_path) VALUES (?, ?)').run('benchproject', project);
  db.prepare(
    "INSERT INTO sessions (id, project_id, type, runtime, status) VALUES (?, 'benchproject', 'tui', 'claude', 'running')",
  ).run(sessionId);
  // Left open, as the running supervisor keeps its connection: otherwise every hook's close
  // would be the last one and pay for a WAL checkpoint that never happens in real use.

  const common = {
    session_id: claudeId,
    transcript_path: path.join(root, 't.jsonl'),
    cwd: project,
    prompt_id: 'b8f999e0-0000-4000-8000-000000000002',
    permission_mode: 'default',
  };
  const payloads = {
    'post-tool-use': {
      ...common,
      effort: { level: 'high' },
      hook_event_name: 'PostToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'echo tool-ran', description: 'echo' },
      tool_response: { stdout: 'tool-ran', stderr: '', interrupted: false, isImage: false, noOutputExpected: false },
      tool_use_id: 'toolu_1',
      duration_ms: 54,
    },
    'session-start': { ...common, hook_event_name: 'SessionStart', source: 'startup' },
    // Stop sums the interactive session's tokens from its transcript (a long one, below). The first
    // run reads it all; later ones only what was appended (nothing here): the steady state.
    stop: { ...common, hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'Done.' },
  };
  // A long conversation: 2,000 replies of two blocks each (claude repeats a reply's usage per block),
  // with a user entry between them (about 3 MB).
  const usage = {
    input_tokens: 1650,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 20000,
    output_tokens: 36,
  };
  const entry = (type, message) => JSON.stringify({ type, uuid: 'u', sessionId: claudeId, cwd: project, message });
  const lines = [];
  for (let i = 0; i < 2000; i++) {
    lines.push(entry('user', { role: 'user', content: `prompt ${i} `.repeat(40) }));
    lines.push(
      entry('assistant', {
        id: `msg_${i}`,
        role: 'assistant',
        content: [{ type: 'text', text: 'reply '.repeat(100) }],
        usage,
      }),
    );
    lines.push(
      entry('assistant', {
        id: `msg_${i}`,
        role: 'assistant',
        content: [{ type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: 'ls' } }],
        usage,
      }),
    );
  }
  writeFileSync(common.transcript_path, `${lines.join('\n')}\n`);
  const hookEnv = {
    ...baseEnv,
    KLAUDE_SESSION_ID: sessionId,
    KLAUDE_PROJECT_HASH: 'benchproject',
    KLAUDE_INSTANCE_ID: '01BENCHINSTANCE00000000000',
    KLAUDE_SOCKET: path.join(root, 'none.sock'),
  };

  const time = (args, env, input) => {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, args, { cwd: project, env, input, stdio: ['pipe', 'pipe', 'pipe'] });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`);
    if (r.stdout.length) throw new Error(`${args.join(' ')} printed on stdout: ${r.stdout}`);
    return ms;
  };
  const stats = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
    return { median: q(0.5), p90: q(0.9) };
  };
  const fmt = (n) => n.toFixed(1);

  for (const [event, payload] of Object.entries(payloads)) {
    const input = JSON.stringify(payload);
    if (process.env.BENCH_KEEP) writeFileSync(path.join(root, `${event}.json`), input);
    const floor = [];
    const injected = [];
    const viaCli = [];
    for (let i = 0; i < N + WARMUP; i++) {
      const f = time(['-e', '0'], baseEnv, input);
      const h = time([...HOOK_NODE_OPTIONS, hookEntry, event], hookEnv, input);
      const c = time([cli, 'hook', event], hookEnv, input);
      if (i >= WARMUP) {
        floor.push(f);
        injected.push(h);
        viaCli.push(c);
      }
    }
    const a = stats(floor);
    const b = stats(injected);
    const c = stats(viaCli);
    const ratio = b.median / a.median;
    console.log(
      `hook ${event}: ${fmt(b.median)} ms (p90 ${fmt(b.p90)}) vs node -e 0 ${fmt(a.median)} ms (p90 ${fmt(a.p90)}) → ${ratio.toFixed(2)}× ` +
        `(goal ≤ 1.15×${ratio <= 1.15 ? ', met' : ', MISSED'}); via cli.js hook ${fmt(c.median)} ms → ${(c.median / a.median).toFixed(2)}×; n=${N}`,
    );
  }
  // The timings only count if the hooks did their work.
  const events = db.prepare('SELECT count(*) AS n FROM events WHERE klaude_session_id = ?').get(sessionId).n;
  const link = db
    .prepare('SELECT klaude_session_id AS k FROM claude_session_links WHERE claude_session_id = ?')
    .get(claudeId);
  db.close();
  const expected = 2 * (N + WARMUP) * Object.keys(payloads).length;
  if (events !== expected || link?.k !== sessionId) {
    throw new Error(
      `the hooks did not record their work: ${events} events (expected ${expected}), link ${JSON.stringify(link)}`,
    );
  }
} finally {
  if (process.env.BENCH_KEEP)
    console.log(
      `kept ${root} (KLAUDE_HOME=${root}/klaude HOME=${root}, cwd ${root}/project; the payloads in ${root}/*.json)`,
    );
  else rmSync(root, { recursive: true, force: true });
}

// A death noticed when it happens, on any init: `kill -9` of a detached agent's runtime (its starter
// gone, nothing open), with the real claude against the Messages-API stand-in; timed until its run
// is recorded (interrupted) and the agent queued behind it is running. Measured under this machine's
// own init, and in PID namespaces whose init reaps every 3 s or never (scripts/lazy-init.py).
// Floor: `klaude sessions` on the same home (what any later look would cost: a node start and the
// DB opened). Goal: ≤ 2 s after the kill, on every init.
//   node bench/death-notice.mjs [trials]     (inside: node bench/death-notice.mjs --inner <trials>)
import './_env.mjs';
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(root, 'dist', 'cli.js');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Start-up costs this machine adds to every process (a CA bundle read at each node start). */
function cleanEnv(extra) {
  const env = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.NODE_OPTIONS;
  return env;
}

async function inner(trials) {
  register();
  const { startMockAnthropic } = await import('../test/support/mock-anthropic.ts');
  const { makeTempHome } = await import('../test/support/temp-home.ts');
  const { CLAUDE_BIN } = await import('../test/support/claude-bin.ts');
  const Database = (await import('better-sqlite3')).default;
  const mock = await startMockAnthropic({
    responder: (r) =>
      r.prompt.startsWith('slow job')
        ? { text: 'Part one of a slow answer. '.repeat(20), chunks: 200, delayMs: 250 }
        : { text: `Reply to: ${r.prompt}` },
  });
  const home = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-bench-death-' });
  const env = cleanEnv(home.env);
  writeFileSync(
    path.join(home.klaudeHome, 'config.yaml'),
    `claude:\n  binary: ${CLAUDE_BIN}\nagents:\n  recover: off\n  maxRunning: 1\nnotify:\n  desktop: false\n`,
  );
  const k = (...args) => spawnSync(process.execPath, [cli, ...args], { env, cwd: home.projectDir, encoding: 'utf8' });
  const startJson = (prompt) => JSON.parse(k('start', 'general', prompt, '--json').stdout).sessions[0].id;
  const db = () => new Database(path.join(home.klaudeHome, 'sessions.db'), { readonly: true });
  const status = (d, id) => d.prepare('SELECT status FROM sessions WHERE id = ?').pluck().get(id);
  const runtimePid = (d, id) =>
    d
      .prepare("SELECT pid FROM runtime_process WHERE klaude_session_id = ? AND kind = 'runtime' AND exited_at IS NULL")
      .pluck()
      .get(id);
  const logHas = (d, id, text) => {
    const p = d.prepare('SELECT log_path FROM sessions WHERE id = ?').pluck().get(id);
    try {
      return spawnSync('grep', ['-q', text, p]).status === 0;
    } catch {
      return false;
    }
  };
  const times = [];
  const floors = [];
  try {
    for (let i = 0; i < trials; i++) {
      const id = startJson(`slow job ${i}`);
      const next = startJson(`next ${i}`);
      const d = db();
      let pid;
      while (!(pid = runtimePid(d, id)) || !logHas(d, id, '"text_delta"')) await sleep(20);
      const t0 = performance.now();
      process.kill(pid, 'SIGKILL');
      while (!(status(d, id) === 'interrupted' && status(d, next) !== 'queued')) await sleep(5);
      times.push(performance.now() - t0);
      d.close();
      const f0 = performance.now();
      k('sessions');
      floors.push(performance.now() - f0);
      k('interrupt', next);
      const d2 = db();
      while (!['done', 'interrupted', 'failed'].includes(status(d2, next))) await sleep(20);
      d2.close();
    }
    console.log(JSON.stringify({ times, floors }));
  } finally {
    await mock.close();
    home.cleanup(); // ends what still runs there, then removes it
  }
}

function outer(trials) {
  const modes = [
    { name: "this machine's init" },
    { name: 'an init reaping every 3 s', init: ['--reap-every', '3'] },
    { name: 'an init that never reaps', init: ['--never'] },
  ];
  const load = spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ').slice(0, 3).join(' ');
  console.log(
    `death notice: kill -9 of a detached runtime → run recorded and the queue moved (load ${load}; NODE_EXTRA_CA_CERTS unset)`,
  );
  for (const m of modes) {
    const self = [process.execPath, fileURLToPath(import.meta.url), '--inner', String(trials)];
    const argv = m.init
      ? [
          'unshare',
          '--pid',
          '--fork',
          '--mount-proc',
          'python3',
          path.join(root, 'scripts', 'lazy-init.py'),
          ...m.init,
          '--',
          ...self,
        ]
      : self;
    const r = spawnSync(argv[0], argv.slice(1), { cwd: root, encoding: 'utf8', env: cleanEnv({}) });
    const line = r.stdout.trim().split('\n').at(-1) ?? '';
    if (r.status !== 0 || !line.startsWith('{')) {
      console.log(`  ${m.name}: FAILED (${r.status}) ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
      process.exitCode = 1;
      continue;
    }
    const { times, floors } = JSON.parse(line);
    const t = median(times);
    const f = median(floors);
    console.log(
      `  ${m.name}: median ${t.toFixed(0)} ms, max ${Math.max(...times).toFixed(0)} ms (n=${times.length}); floor (klaude sessions) ${f.toFixed(0)} ms → ${(t / f).toFixed(2)}× floor; goal ≤ 2000 ms`,
    );
  }
}

if (process.argv[2] === '--inner') await inner(Number(process.argv[3] ?? 3));
else outer(Number(process.argv[2] ?? 3));

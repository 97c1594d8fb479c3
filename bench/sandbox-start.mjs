// An agent's start in Claude Code's sandbox against the same start without it (docs/sandbox.md;
// goal: start → working ≤ 1.2×), in one run, alternating: the real claude against the stand-in of
// test/support/mock-anthropic.ts. For each start, from `klaude start … -d` to
//   working:  the agent's first model request reaching the stand-in;
//   command:  the result of its first Bash command (`true`) reaching it (the sandbox's own set-up
//             for a command: bubblewrap, its proxies);
// and klaude's own runtime's resident memory at its first request (goal: unchanged).
//   node bench/sandbox-start.mjs     (after `npm run build`; BENCH_N=8 for more rounds)
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

register();
const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repo, 'dist', 'cli.js');
const { startMockAnthropic } = await import('../test/support/mock-anthropic.ts');
const { makeTempHome } = await import('../test/support/temp-home.ts');
const { CLAUDE_BIN } = await import('../test/support/claude-bin.ts');
const Database = createRequire(path.join(repo, 'package.json'))('better-sqlite3');
const N = Number(process.env.BENCH_N ?? 5);

const mock = await startMockAnthropic({
  responder: (r) => {
    if (r.isToolResult) return { text: 'done' };
    const m = /^run: (.+)$/.exec(r.prompt);
    return m ? { bash: { command: m[1], description: 'run' } } : { text: 'hi' };
  },
});
const home = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-bench-sandbox-' });
const config = (mode) =>
  writeFileSync(
    path.join(home.klaudeHome, 'config.yaml'),
    `claude:\n  binary: ${CLAUDE_BIN}\nnotify:\n  desktop: false\nagents:\n  sandbox: ${mode}\n  allowedTools: [Bash]\n`,
  );

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const fmt = (n) => n.toFixed(0);

function runtimeRssMiB(sessionId) {
  const db = new Database(path.join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    const row = db
      .prepare("SELECT pid FROM runtime_process WHERE klaude_session_id = ? AND kind = 'runtime' ORDER BY id DESC")
      .get(sessionId);
    const status = readFileSync(`/proc/${row.pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  } catch {
    return NaN;
  } finally {
    db.close();
  }
}

async function once(mode, i) {
  if (process.env.BENCH_DEBUG) console.error('once', mode, i);
  config(mode);
  const marker = `m${mode}${i}x${Date.now()}`;
  const t0 = process.hrtime.bigint();
  const out = await new Promise((resolve, reject) => {
    const c = spawn(process.execPath, [cli, 'start', 'general', `run: true ${marker}`, '-d', '--json'], {
      cwd: home.projectDir,
      env: home.env,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let text = '';
    c.stdout.on('data', (d) => (text += d));
    c.on('close', (code) => (code === 0 ? resolve(text) : reject(new Error(`start failed (exit ${code})`))));
  });
  const id = JSON.parse(out).sessions[0].id;
  await mock.waitForRequest((q) => !q.isToolResult && q.prompt.includes(marker), 60_000);
  const working = Number(process.hrtime.bigint() - t0) / 1e6;
  const rss = runtimeRssMiB(id);
  await mock.waitForRequest((q) => q.isToolResult && JSON.stringify(q.body).includes(marker), 60_000);
  const command = Number(process.hrtime.bigint() - t0) / 1e6;
  if (process.env.BENCH_DEBUG) console.error('  ', { working, command, rss });
  // Not spawnSync: the stand-in answers from this process's event loop.
  await new Promise((resolve) =>
    spawn(process.execPath, [cli, 'wait', id, '--timeout', '60'], { cwd: home.projectDir, env: home.env }).on(
      'close',
      resolve,
    ),
  );
  return { working, command, rss };
}

const runs = { off: [], on: [] };
try {
  await once('off', -1); // warm-up: claude's first start in a home is slower
  await once('on', -1);
  for (let i = 0; i < N; i++) {
    runs.off.push(await once('off', i));
    runs.on.push(await once('on', i));
  }
} finally {
  await mock.close();
  home.cleanup();
}
const m = (mode, k) => median(runs[mode].map((x) => x[k]));
const ratio = (k) => (m('on', k) / m('off', k)).toFixed(2);
console.log(
  `sandbox-start: start → working ${fmt(m('on', 'working'))} ms sandboxed vs ${fmt(m('off', 'working'))} ms unsandboxed (${ratio('working')}×, goal ≤ 1.2×); ` +
    `→ first command's result ${fmt(m('on', 'command'))} vs ${fmt(m('off', 'command'))} ms (${ratio('command')}×); ` +
    `runtime RSS ${m('on', 'rss').toFixed(1)} vs ${m('off', 'rss').toFixed(1)} MiB (median of ${N}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`,
);

// The dashboard with live PTY sessions: 5 `klaude talk` sessions (the real claude at its prompt,
// against a closed loopback port) running detached, `klaude ui` showing the selected one's screen.
// - idle: the dashboard's CPU, wake-ups and bytes drawn over BENCH_IDLE_S seconds (docs/ARCHITECTURE.md,
//   Performance budget: idle ≤ 0.2 % CPU, no timers firing: an idle PTY session sends nothing, so costs nothing).
// - preview latency: keys typed into the selected session (through a `klaude talk` attached in
//   another terminal) → claude echoes them → on the dashboard's screen. Measured from the keys to
//   the talk terminal (the host's output) and to the dashboard; the difference is the preview's
//   own share (viewer socket → headless terminal → frame), goal within one frame (33 ms at 30 fps).
//   node bench/ui-pty-idle.mjs    (after `npm run build`; BENCH_IDLE_S=30, BENCH_N=20, BENCH_SESSIONS=5)
import './_env.mjs';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  CLK_TCK,
  claudeBinary,
  cli,
  cpuTicks,
  fmt,
  makeUiHome,
  prepareClaudeHome,
  repo,
  sleep,
  spawnTerm,
  stats,
} from './_ui-support.mjs';

const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
const N = Number(process.env.BENCH_N ?? 20);
const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 5);
const require = createRequire(path.join(repo, 'package.json'));
const Database = require('better-sqlite3');
const READY = /\?\s*for\s*shortcuts/;

const wakeups = (pid) =>
  Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const hostPids = (h) => {
  const db = new Database(path.join(h.home, 'sessions.db'), { readonly: true });
  try {
    return db
      .prepare("SELECT pid FROM runtime_process WHERE kind = 'pty' AND exited_at IS NULL")
      .all()
      .map((r) => r.pid);
  } finally {
    db.close();
  }
};

const h = makeUiHome({ agents: SESSIONS, status: 'done' });
let ui;
try {
  prepareClaudeHome(h);
  writeFileSync(path.join(h.home, 'config.yaml'), `claude:\n  binary: ${claudeBinary()}\n`);
  // Start each session in the PTY server (its claude), then detach: they run on in the background.
  await Promise.all(
    h.sessions.map(async (s) => {
      const t = spawnTerm(process.execPath, [cli, 'talk', s.id], { cwd: h.project, env: h.env, cols: 100, rows: 30 });
      await t.waitFor(READY, { timeoutMs: 90_000 });
      t.write('\x1d');
      await t.stop('SIGCONT');
    }),
  );
  if (hostPids(h).length !== SESSIONS)
    throw new Error(`expected ${SESSIONS} PTY sessions, found ${hostPids(h).length}`);

  ui = spawnTerm(cli, ['ui'], { cwd: h.project, env: h.env });
  await ui.waitFor(/\? help\s+q quit/);
  await ui.waitFor(/screen · agent-\d+ \w+ · pty/); // the newest session is selected, its screen shown
  await ui.waitFor(READY);
  await sleep(Number(process.env.BENCH_SETTLE_S ?? 15) * 1000);

  const c0 = cpuTicks(ui.pid);
  const w0 = wakeups(ui.pid);
  const out0 = ui.raw().length;
  await sleep(IDLE_S * 1000);
  const idleTicks = cpuTicks(ui.pid) - c0;
  const idleWakeups = wakeups(ui.pid) - w0;
  const idleBytes = ui.raw().length - out0;
  const idlePct = (idleTicks / CLK_TCK / IDLE_S) * 100;

  // Preview latency: type into the selected session from another terminal.
  const selected = h.sessions.at(-1);
  const talk = spawnTerm(process.execPath, [cli, 'talk', selected.id], {
    cwd: h.project,
    env: h.env,
    cols: 100,
    rows: 30,
  });
  await talk.waitFor(READY);
  await sleep(1000);
  const toHost = [];
  const toUi = [];
  for (let i = 0; i < N + 3; i++) {
    const marker = `zq${Math.random().toString(36).slice(2, 8).replace(/\d/g, 'x')}`;
    const offT = talk.raw().length;
    const offU = ui.raw().length;
    const t0 = process.hrtime.bigint();
    talk.write(marker);
    const [a, b] = await Promise.all([
      talk.waitFor(new RegExp(marker), { offset: offT, from: t0, timeoutMs: 10_000 }),
      ui.waitFor(new RegExp(marker), { offset: offU, from: t0, timeoutMs: 10_000 }),
    ]);
    if (i >= 3) {
      toHost.push(a);
      toUi.push(b);
    }
    talk.write('\x7f'.repeat(marker.length));
    await sleep(150 + Math.random() * 100);
  }
  talk.write('\x1d');
  await talk.stop('SIGCONT');
  await ui.stop();

  const host = stats(toHost);
  const shown = stats(toUi);
  const own = stats(toUi.map((x, i) => x - toHost[i]));
  console.log(
    `ui with ${SESSIONS} idle PTY sessions, ${IDLE_S}s: CPU ${fmt(idlePct, 2)} % (${idleTicks} ticks; goal ≤ 0.2 %), ` +
      `wake-ups ${idleWakeups}, bytes drawn ${idleBytes} (goal: 0, no timers) · ` +
      `preview: keys → claude's echo on the talk terminal median ${fmt(host.median)} ms, on the dashboard's preview median ${fmt(shown.median)} ms ` +
      `(p90 ${fmt(shown.p90)}); the preview's own share median ${fmt(own.median)} ms, p90 ${fmt(own.p90)} ms = ${fmt(own.median / 33.3, 2)}× one frame (goal ≤ 1×)`,
  );
} finally {
  await ui?.stop();
  let pids = [];
  try {
    pids = hostPids(h);
  } catch {
    /* no DB */
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  for (
    let i = 0;
    i < 100 &&
    pids.some((p) => {
      try {
        process.kill(p, 0);
        return true;
      } catch {
        return false;
      }
    });
    i++
  )
    await sleep(50);
  h.cleanup();
}

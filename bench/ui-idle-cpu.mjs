// The dashboard at rest costs nothing: with 10 agents in the tree and one agent's log followed,
// `klaude ui` should use ≈0 CPU and not wake up at all (no timers; everything is driven by file
// notifications). Then the same while that agent streams 10 log lines a second.
// docs/ARCHITECTURE.md, Performance budget: idle ≤ 0.2 % CPU, no timers firing; while an agent streams
// ≤ 1.5 % at 10 lines a second. Then what the dashboard drew over its run (KLAUDE_UI_STATS): Ink frames,
// writes, rows the terminal scrolled, renders by pane.
//   node bench/ui-idle-cpu.mjs      (after `npm run build`; BENCH_IDLE_S=30 seconds idle by default)
import './_env.mjs';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { CLK_TCK, cli, cpuTicks, drawn, fmt, makeUiHome, sleep, spawnTerm } from './_ui-support.mjs';

const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 30);
const STREAM_S = Number(process.env.BENCH_STREAM_S ?? 10);

const wakeups = (pid) => {
  const s = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(s)?.[1] ?? NaN);
};
// Finished agents: a running row's clock ticks once a second by design (bench/ui-live.mjs measures that).
const h = makeUiHome({ agents: 10, status: 'done' });
try {
  const statsFile = path.join(h.root, 'ui-stats.json');
  const ui = spawnTerm(cli, ['ui'], { cwd: h.project, env: { ...h.env, KLAUDE_UI_STATS: statsFile } });
  await ui.waitFor(/\? help\s+q quit/);
  const followed = h.sessions.at(-1); // the newest root: selected, its log followed
  await ui.waitFor(/working on task 9/);
  // Let start-up settle: the services, the socket, and V8's own after-start-up GC rounds (its
  // memory reducer runs a few times in the first ~10 s; it is V8's, not a timer of ours).
  await sleep(Number(process.env.BENCH_SETTLE_S ?? 15) * 1000);

  const c0 = cpuTicks(ui.pid);
  const w0 = wakeups(ui.pid);
  const out0 = ui.raw().length;
  await sleep(IDLE_S * 1000);
  const idleTicks = cpuTicks(ui.pid) - c0;
  const idleWakeups = wakeups(ui.pid) - w0;
  const idleBytes = ui.raw().length - out0;
  const idlePct = (idleTicks / CLK_TCK / IDLE_S) * 100;

  /** CPU % while `perSecond` log lines a second are appended to the followed log. */
  let n = 0;
  const stream = async (perSecond) => {
    const c = cpuTicks(ui.pid);
    const t0 = Date.now();
    const count = STREAM_S * perSecond;
    for (let i = 0; i < count; i++) {
      appendFileSync(
        followed.logPath,
        `${JSON.stringify({ ts: Date.now(), type: 'text', text: `streamed line ${n++} of the agent's answer` })}\n`,
      );
      await sleep(t0 + ((i + 1) * 1000) / perSecond - Date.now());
    }
    await ui.waitFor(new RegExp(`streamed line ${n - 1} `));
    return ((cpuTicks(ui.pid) - c) / CLK_TCK / ((Date.now() - t0) / 1000)) * 100;
  };
  const busy = await stream(2);
  const stress = await stream(10);
  await ui.stop();

  console.log(
    `ui idle, 10 agents, ${IDLE_S}s: CPU ${fmt(idlePct, 2)} % (${idleTicks} ticks of ${1000 / CLK_TCK} ms; goal ≤ 0.2 %), ` +
      `main-thread wake-ups ${idleWakeups}, bytes drawn ${idleBytes} (goal: 0, no timers) · ` +
      `while an agent streams: 2 events/s ${fmt(busy, 2)} %, 10 events/s ${fmt(stress, 2)} % CPU (goal ≤ 1.5 %)`,
  );
  console.log(`ui drew, over its run (${10 * STREAM_S + 2 * STREAM_S} log lines): ${drawn(statsFile)}`);
} finally {
  h.cleanup();
}

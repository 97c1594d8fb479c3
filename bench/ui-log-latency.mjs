// Event → dashboard: from a line appended to the followed agent's log to that line on the
// terminal (`klaude ui` under a real PTY; file notification → read → render → write).
// docs/ARCHITECTURE.md, Performance budget: on screen within one frame (≤ 33 ms at 30 fps).
//   node bench/ui-log-latency.mjs     (after `npm run build`; BENCH_N=40 samples by default)
import './_env.mjs';
import { appendFileSync } from 'node:fs';
import { cli, fmt, makeUiHome, sleep, spawnTerm, stats } from './_ui-support.mjs';

const N = Number(process.env.BENCH_N ?? 40);

const h = makeUiHome({ agents: 10, status: 'running' });
try {
  const ui = spawnTerm(cli, ['ui'], { cwd: h.project, env: h.env });
  await ui.waitFor(/\? help\s+q quit/);
  await ui.waitFor(/working on task 9/); // the newest agent is selected and its log followed
  await sleep(1500);
  const file = h.sessions.at(-1).logPath;
  const lat = [];
  for (let i = 0; i < N + 3; i++) {
    const marker = `latency-marker-${i}-${Math.random().toString(36).slice(2, 8)}`;
    const offset = ui.raw().length;
    const t0 = process.hrtime.bigint();
    appendFileSync(file, `${JSON.stringify({ ts: Date.now(), type: 'text', text: marker })}\n`);
    const ms = await ui.waitFor(new RegExp(marker), { offset, from: t0, timeoutMs: 5000 });
    if (i >= 3) lat.push(ms);
    await sleep(60 + Math.random() * 90); // apart from the previous frame, at varied phases
  }
  await ui.stop();
  const s = stats(lat);
  console.log(
    `ui log line appended → on screen: median ${fmt(s.median)} ms, p90 ${fmt(s.p90)} ms, min ${fmt(s.min)} ms over ${N} lines (goal ≤ 33 ms, one frame at 30 fps)`,
  );
} finally {
  h.cleanup();
}

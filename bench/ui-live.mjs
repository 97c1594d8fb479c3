// The cost of being live, on the real `klaude ui` under a PTY:
//  1. nothing running (10 finished agents, one's log followed): no timer at all, so the process
//     should not wake up (main-thread wake-ups counted from /proc; goal 0 from klaude itself);
//  2. the followed agent running, still (its row's clock ticks once a second);
//  3. the followed agent streaming ~20 text deltas a second: CPU goal ≤ 2 % of a core
//     (docs/ARCHITECTURE.md, Performance budget), measured after the stream's first seconds (reported apart).
//   node bench/ui-live.mjs     (after `npm run build`; BENCH_IDLE_S=10, BENCH_WARM_S=5, BENCH_STREAM_S=10, BENCH_SETTLE_S=10)
import './_env.mjs';
import { appendFileSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { CLK_TCK, cli, cpuTicks, fmt, makeUiHome, repo, sleep, spawnTerm } from './_ui-support.mjs';

const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10);
const STREAM_S = Number(process.env.BENCH_STREAM_S ?? 10);
const WARM_S = Number(process.env.BENCH_WARM_S ?? 5);
const wakeups = (pid) =>
  Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const Database = createRequire(path.join(repo, 'package.json'))('better-sqlite3');

const h = makeUiHome({ agents: 10, status: 'done' });
try {
  const ui = spawnTerm(cli, ['ui'], { cwd: h.project, env: h.env, cols: 140 });
  await ui.waitFor(/\? help\s+q quit/);
  await ui.waitFor(/working on task 9/);
  await sleep(Number(process.env.BENCH_SETTLE_S ?? 10) * 1000);

  /** CPU % of a core and wake-ups over `s` seconds while `during` runs. */
  const measure = async (s, during = () => sleep(s * 1000)) => {
    const c = cpuTicks(ui.pid);
    const w = wakeups(ui.pid);
    const t0 = Date.now();
    await during();
    const secs = (Date.now() - t0) / 1000;
    return { cpu: ((cpuTicks(ui.pid) - c) / CLK_TCK / secs) * 100, wakeups: wakeups(ui.pid) - w, secs };
  };

  const idle = await measure(IDLE_S);

  const followed = h.sessions.at(-1);
  const db = new Database(path.join(h.home, 'sessions.db'));
  db.prepare(
    "UPDATE sessions SET status = 'running', activity = 'writing', run_started_at = ?, updated_at = ? WHERE id = ?",
  ).run(Date.now(), Date.now(), followed.id);
  db.close();
  await ui.waitFor(/\ds writ/).catch((e) => {
    console.error(
      ui
        .raw()
        .split('agent-9')
        .slice(-3)
        .map((x) => JSON.stringify(x.slice(0, 200)))
        .join('\n'),
    );
    throw e;
  });
  const ticking = await measure(IDLE_S);

  let n = 0;
  /** One agent streaming 20 text pieces a second for `s` seconds (then its last piece on screen). */
  const streamFor = (s) => async () => {
    const t0 = Date.now();
    const count = s * 20;
    for (let i = 0; i < count; i++) {
      appendFileSync(
        followed.logPath,
        `${JSON.stringify({ ts: Date.now(), type: 'text_delta', text: `word${n++} ` })}\n`,
      );
      await sleep(t0 + ((i + 1) * 1000) / 20 - Date.now());
    }
    await ui.waitFor(new RegExp(`word${n - 1}`));
  };
  // The first seconds of a stream run code the dashboard has not run before (V8 compiles it as it
  // gets hot): measured apart from the stream that follows, which is what a stream of minutes costs.
  const warm = await measure(WARM_S, streamFor(WARM_S));
  const stream = await measure(STREAM_S, streamFor(STREAM_S));
  await ui.stop();

  console.log(
    `ui live, 10 agents: nothing running ${IDLE_S}s: CPU ${fmt(idle.cpu, 2)} %, wake-ups ${idle.wakeups} (goal 0: no timer) · ` +
      `one running, clock ticking: CPU ${fmt(ticking.cpu, 2)} %, wake-ups ${ticking.wakeups} in ${IDLE_S}s · ` +
      `streaming 20 deltas/s: first ${WARM_S}s CPU ${fmt(warm.cpu, 2)} %, then CPU ${fmt(stream.cpu, 2)} % of a core over ${fmt(stream.secs, 1)}s (goal ≤ 2 %), wake-ups ${stream.wakeups}`,
  );
} finally {
  h.cleanup();
}

// The dashboard previewing a streaming PTY session, and memory with 3 live PTY sessions
// (docs/ARCHITECTURE.md, Performance budget). Three `klaude talk` sessions run detached (the real claude against the
// Messages-API stand-in of test/support/mock-anthropic.ts); `klaude ui` shows the newest one's
// screen while claude streams a long reply into it (BENCH_WORDS words over about BENCH_STREAM_S s).
// A `klaude talk --view` in another terminal receives what the session writes.
// Printed, each beside its goal and against a floor measured in this run:
// - CPU: the dashboard's CPU over the stream ÷ the streaming claude's own CPU (goal ≤ 0.02×;
//   tmux showing a pane is 0.007×);
// - bytes: bytes the dashboard wrote ÷ bytes the session wrote (goal ≤ 1.3×);
// - what the dashboard drew (KLAUDE_UI_STATS): Ink frames, its writes, the rows the terminal scrolled,
//   and renders by pane, over the dashboard's run;
// - first frame with 3 live PTY previews: spawn → the dashboard's first frame, and → the selected
//   session's screen in it, vs a bundled production Ink hello-world (goal ≤ 1.05×), BENCH_N runs;
// - switch: a key moving the selection to another live PTY session → its screen shown (goal ≤ 50 ms);
// - memory: RSS of klaude's own processes with 3 live sessions (the dashboard, the one PTY server
//   that hosts all three, and the `sh` watchdog guarding its claudes), in MiB (goal ≤ 90 MiB;
//   ccmanager 3.1.5's is 128), idle and at its peak while the stream runs, and their PSS; then
//   each process's RSS and PSS by what it is made of (bench/_memory.mjs: the node binary's pages,
//   shared by every node process, count in full in each RSS); the dashboard's RSS before, right
//   after and BENCH_AFTER_S s after the stream (goal: no growth); and the floors, measured in this
//   run with each process's V8 flags: a bundled Ink hello-world (the least a dashboard drawn with
//   Ink costs) and a bare `node` (the least a second node process costs).
//   node bench/ui-pty-stream.mjs   (after `npm run build`)
import './_env.mjs';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import { register } from 'tsx/esm/api';
import { describe, memoryOf, memoryOfAll } from './_memory.mjs';
import {
  buildInkHello,
  CLK_TCK,
  claudeBinary,
  cli,
  cpuTicks,
  drawn,
  fmt,
  makeUiHome,
  prepareClaudeHome,
  repo,
  rssMiB,
  sleep,
  spawnTerm,
  stats,
  threadDelta,
  threadTicks,
} from './_ui-support.mjs';

register();
const { startMockAnthropic } = await import('../test/support/mock-anthropic.ts');
const require = createRequire(path.join(repo, 'package.json'));
const Database = require('better-sqlite3');
const WORDS = Number(process.env.BENCH_WORDS ?? 2000);
const STREAM_S = Number(process.env.BENCH_STREAM_S ?? 30);
const AFTER_S = Number(process.env.BENCH_AFTER_S ?? 10);
const READY = /\?\s*for\s*shortcuts/;
const N = Number(process.env.BENCH_N ?? 8);
const SWITCHES = Number(process.env.BENCH_SWITCHES ?? 10);
/** The dashboard's V8 flags: dist/cli.js's exec line, then src/lib/heap.ts's at run time. */
const UI_FLAGS = ['--v8-pool-size=1', '--semi-space-growth-factor=1', '--max-opt=1', '--liftoff-only'];

/** Live 'pty' rows (one per session; pid = the PTY server hosting it). */
const ptyRows = (h) => {
  const db = new Database(path.join(h.home, 'sessions.db'), { readonly: true });
  try {
    return db
      .prepare(
        "SELECT klaude_session_id AS sessionId, pid FROM runtime_process WHERE kind = 'pty' AND exited_at IS NULL",
      )
      .all();
  } finally {
    db.close();
  }
};
/** The PTY server(s) hosting the sessions (one expected). */
const serverPids = (h) => [...new Set(ptyRows(h).map((r) => r.pid))];
const cmdline = (pid) => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch {
    return [];
  }
};
/** The `sh` watchdog(s) the server started to guard its CLIs (ownership/watchdog-pool.ts: one for all). */
const watchdogsOf = (server) => childrenOf(server).filter((p) => cmdline(p).includes('klaude-watchdog'));
/** The CLI the server runs for a session (its env names the session). */
const cliOf = (server, sessionId) =>
  childrenOf(server).find((p) => {
    try {
      return readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(`KLAUDE_SESSION_ID=${sessionId}`);
    } catch {
      return false;
    }
  });
/** Direct children of a process (Linux /proc). */
const childrenOf = (pid) =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const st = readFileSync(`/proc/${d}/stat`, 'utf8');
        return Number(st.slice(st.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
/** CPU ticks of a process and all its descendants. */
const treeTicks = (pid) => {
  let t = 0;
  try {
    t = cpuTicks(pid);
  } catch {
    return 0;
  }
  for (const c of childrenOf(pid)) t += treeTicks(c);
  return t;
};
/**
 * The floors of the memory figure, with the V8 flags klaude gives each process: a bundled Ink
 * hello-world that stays up (the dashboard: it draws with Ink), a bare node (the PTY server).
 */
async function memoryFloors(hello, h, server) {
  const argv = cmdline(server);
  const serverFlags = argv.slice(1, argv.indexOf(cli));
  const live = hello.replace(/\.js$/, '-live.js');
  writeFileSync(live, `${readFileSync(hello, 'utf8')}\nsetInterval(() => {}, 1 << 30);\n`);
  const ink = spawnTerm(process.execPath, [...UI_FLAGS, live], { cwd: h.project, env: h.env });
  await ink.waitFor(/hello world/);
  await sleep(2000);
  const inkHello = memoryOf(ink.pid);
  await ink.stop();
  const bare = spawnTerm(process.execPath, [...serverFlags, '-e', 'setInterval(() => {}, 1 << 30)'], {
    cwd: h.project,
    env: h.env,
  });
  await sleep(2000);
  const node = memoryOf(bare.pid);
  await bare.stop();
  return { inkHello, node };
}

function printMemory({ idle, memIdle, pssIdle, memPeak, peaks, serverLive, floors, watchdogs }) {
  const floor = floors.inkHello.rss + floors.node.rss + idle.watchdogs.rss;
  console.log(
    `memory with 3 live PTY sessions: dashboard + PTY server + ${watchdogs.length} watchdog(s) ${fmt(memIdle)} MiB RSS idle, ${fmt(memPeak)} MiB peak while streaming ` +
      `(goal ≤ 90 MiB; ccmanager 128); PSS ${fmt(pssIdle)} MiB idle; floor ${fmt(floor)} MiB RSS (an Ink hello-world + a bare node + the watchdog) → ${fmt(memIdle / floor, 2)}× the floor`,
  );
  console.log(`  dashboard idle: ${describe(idle.ui)}; peak ${fmt(peaks.ui)} MiB RSS`);
  console.log(
    `  PTY server idle: ${describe(idle.server)}; peak ${fmt(peaks.server)}, after the stream ${describe(serverLive)}`,
  );
  console.log(`  watchdog(s) idle: ${describe(idle.watchdogs)}`);
  console.log(`  floor, bundled Ink hello-world (dashboard's V8 flags): ${describe(floors.inkHello)}`);
  console.log(`  floor, bare node (PTY server's V8 flags): ${describe(floors.node)}`);
}

function reply() {
  const words = [];
  for (let i = 0; i < WORDS; i++)
    words.push(['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta'][i % 8] + i);
  const lines = [];
  for (let i = 0; i < words.length; i += 12) lines.push(words.slice(i, i + 12).join(' '));
  lines.push('stream-end-marker');
  const chunks = lines.length;
  return { text: `${lines.join('\n')}\n`, chunks, delayMs: Math.round((STREAM_S * 1000) / chunks) };
}

const mock = await startMockAnthropic();
const h = makeUiHome({ agents: 3, status: 'done' });
let ui;
let view;
try {
  prepareClaudeHome(h);
  h.env.ANTHROPIC_BASE_URL = mock.url;
  writeFileSync(path.join(h.home, 'config.yaml'), `claude:\n  binary: ${claudeBinary()}\n`);
  await Promise.all(
    h.sessions.map(async (s) => {
      const t = spawnTerm(process.execPath, [cli, 'talk', s.id], { cwd: h.project, env: h.env, cols: 100, rows: 30 });
      await t.waitFor(READY, { timeoutMs: 90_000 });
      t.write('\x1d');
      await t.stop('SIGCONT');
    }),
  );
  if (ptyRows(h).length !== 3 || serverPids(h).length !== 1)
    throw new Error(`expected 3 PTY sessions in one PTY server, found ${JSON.stringify(ptyRows(h))}`);

  // First frame with 3 live PTY previews, interleaved with the floor.
  const dir = mkdtempSync(path.join(tmpdir(), 'klaude-bench-ink-'));
  const hello = await buildInkHello(dir);
  const floor = [];
  const first = [];
  const filled = [];
  for (let i = 0; i < N + 2; i++) {
    const a = spawnTerm(process.execPath, [hello], { cwd: h.project, env: h.env });
    const fa = await a.waitFor(/hello world/);
    await a.stop();
    const b = spawnTerm(cli, ['ui'], { cwd: h.project, env: h.env });
    const fb = await b.waitFor(/\? help\s+q quit/);
    const fc = await b.waitFor(/screen · agent-2 \w+ · pty[\s\S]*\?\s*for\s*shortcuts/, { timeoutMs: 30_000 });
    await b.stop();
    if (i >= 2) {
      floor.push(fa);
      first.push(fb);
      filled.push(fc);
    }
  }
  const floors = await memoryFloors(hello, h, serverPids(h)[0]);
  rmSync(dir, { recursive: true, force: true });
  const fl = stats(floor).median;
  console.log(
    `ui first frame with 3 live PTY sessions: median ${fmt(stats(first).median)} ms, previews filled ${fmt(stats(filled).median)} ms, vs bundled Ink hello-world ${fmt(fl)} ms ` +
      `→ ${fmt(stats(first).median / fl, 2)}× (goal ≤ 1.05×; filled ${fmt(stats(filled).median / fl, 2)}×; n=${N})`,
  );

  const statsFile = path.join(h.root, 'ui-stats.json');
  ui = spawnTerm(cli, ['ui'], { cwd: h.project, env: { ...h.env, KLAUDE_UI_STATS: statsFile } });
  await ui.waitFor(/screen · agent-2 \w+ · pty/, { timeoutMs: 30_000 });
  await ui.waitFor(READY);
  await sleep(3000);

  // Switch between two live previews (down, up, …): key → the other session's screen drawn.
  const switches = [];
  for (let i = 0; i < SWITCHES + 2; i++) {
    const to = i % 2 === 0 ? 1 : 2;
    const off = ui.raw().length;
    const t0 = process.hrtime.bigint();
    ui.write(i % 2 === 0 ? '\x1b[B' : '\x1b[A');
    const ms = await ui.waitFor(new RegExp(`screen · agent-${to} \\w+ · pty[\\s\\S]*\\?\\s*for\\s*shortcuts`), {
      offset: off,
      from: t0,
      timeoutMs: 10_000,
    });
    if (i >= 2) switches.push(ms);
    await sleep(300 + Math.random() * 200);
  }
  const sw = stats(switches);
  console.log(
    `ui switch to another live PTY preview: median ${fmt(sw.median)} ms (p90 ${fmt(sw.p90)}; goal ≤ 50 ms; n=${SWITCHES})`,
  );
  const selected = h.sessions.at(-1);
  const servers = serverPids(h);
  const watchdogs = servers.flatMap(watchdogsOf);
  const own = () => [ui.pid, ...servers, ...watchdogs];
  const rssBefore = rssMiB(ui.pid);
  const idle = { ui: memoryOf(ui.pid), server: memoryOfAll(servers), watchdogs: memoryOfAll(watchdogs) };
  const memIdle = idle.ui.rss + idle.server.rss + idle.watchdogs.rss;
  const pssIdle = idle.ui.pss + idle.server.pss + idle.watchdogs.pss;

  // Type the prompt through a controlling talk, detach, and watch with a view-only talk.
  mock.enqueue(reply());
  const talk = spawnTerm(process.execPath, [cli, 'talk', selected.id], {
    cwd: h.project,
    env: h.env,
    cols: 100,
    rows: 30,
  });
  await talk.waitFor(READY);
  talk.write('streamlonganswer');
  await talk.waitFor(/streamlonganswer/);
  talk.write('\r');
  await mock.waitForRequest(
    (r) => r.kind === 'messages' && !r.isSideRequest && /streamlonganswer/.test(r.prompt),
    30_000,
  );
  talk.write('\x1d');
  await talk.stop('SIGCONT');
  view = spawnTerm(process.execPath, [cli, 'talk', '--view', selected.id], {
    cwd: h.project,
    env: h.env,
    cols: 100,
    rows: 30,
  });
  await view.waitFor(/alpha0|beta1/, { timeoutMs: 30_000 });

  const claudePid = cliOf(servers[0], selected.id);
  if (!claudePid) throw new Error(`no CLI found for ${selected.id}`);
  const u0 = cpuTicks(ui.pid);
  const th0 = threadTicks(ui.pid);
  const c0 = treeTicks(claudePid);
  const ub0 = ui.raw().length;
  const vb0 = view.raw().length;
  const t0 = Date.now();
  let memPeak = 0;
  const peaks = { ui: 0, server: 0 };
  const sampler = setInterval(() => {
    try {
      memPeak = Math.max(
        memPeak,
        own().reduce((a, p) => a + rssMiB(p), 0),
      );
      peaks.ui = Math.max(peaks.ui, rssMiB(ui.pid));
      peaks.server = Math.max(peaks.server, ...servers.map(rssMiB));
    } catch {
      /* a process went away */
    }
  }, 1000);
  await view.waitFor(/stream-end-marker/, { timeoutMs: (STREAM_S + 120) * 1000 });
  await ui.waitFor(/stream-end-marker/, { offset: ub0, timeoutMs: 30_000 });
  await sleep(1000);
  clearInterval(sampler);
  const secs = (Date.now() - t0) / 1000;
  const uiTicks = cpuTicks(ui.pid) - u0;
  const byThread = threadDelta(th0, threadTicks(ui.pid));
  const claudeTicks = treeTicks(claudePid) - c0;
  const uiBytes = Buffer.byteLength(ui.raw().slice(ub0));
  const sessionBytes = Buffer.byteLength(view.raw().slice(vb0));
  const rssAfter = rssMiB(ui.pid);
  // What the session wrote, as it came, for bench/ui-preview-replay.mjs.
  if (process.env.BENCH_SAVE_STREAM) writeFileSync(process.env.BENCH_SAVE_STREAM, JSON.stringify(view.chunks(vb0)));
  await sleep(AFTER_S * 1000);
  const rssLater = rssMiB(ui.pid);
  const memLive = own().reduce((a, p) => a + rssMiB(p), 0);
  const serverLive = memoryOfAll(servers);

  const pct = (t) => (t / CLK_TCK / secs) * 100;
  console.log(
    `ui previewing a streaming PTY session (${WORDS} words, ${fmt(secs)} s): dashboard CPU ${fmt(pct(uiTicks), 2)} % vs the streaming claude's ${fmt(pct(claudeTicks), 2)} % ` +
      `= ${fmt(uiTicks / Math.max(1, claudeTicks), 3)}× (goal ≤ 0.02×); bytes drawn ${uiBytes} for ${sessionBytes} the session wrote = ${fmt(uiBytes / Math.max(1, sessionBytes), 2)}× (goal ≤ 1.3×); the dashboard's ticks by thread: ${byThread}`,
  );
  printMemory({ idle, memIdle, pssIdle, memPeak: Math.max(memPeak, memLive), peaks, serverLive, floors, watchdogs });
  console.log(
    `  dashboard ${fmt(rssBefore)} MiB before the stream, ${fmt(rssAfter)} right after, ${fmt(rssLater)} ${AFTER_S} s later (goal: no growth)`,
  );
  await ui.stop();
  console.log(`ui drew, over its run: ${drawn(statsFile)}`);
} finally {
  await view?.stop();
  await ui?.stop();
  let pids = [];
  try {
    pids = serverPids(h);
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
  await mock.close();
  h.cleanup();
}

// `klaude talk`: how fast a live PTY session's screen is back, and what an idle one costs.
// - cold: `klaude talk <id>` with no PTY session yet (the PTY server + claude start) → claude's prompt shown.
// - re-attach: `klaude talk <id>` to the running session → its screen shown, vs `node -e 0`.
// - switch: a socket client's hello → the screen frame (what the dashboard pays to show another
//   live session; docs/ARCHITECTURE.md, Performance budget: switching between live PTY sessions ≤ 50 ms to the new screen).
// - idle: CPU and wake-ups of the PTY host (and, for scale, its claude) over BENCH_IDLE_S seconds.
// The real claude runs against a closed loopback port (it sits at its prompt; no conversation).
//   node bench/talk.mjs      (after `npm run build`; BENCH_N=20 runs, BENCH_IDLE_S=10, BENCH_SETTLE_S=10 before idle:
//   V8's GC rounds after the attach bursts are not ours)
import './_env.mjs';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
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

const N = Number(process.env.BENCH_N ?? 20);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10);
const require = createRequire(path.join(repo, 'package.json'));
const Database = require('better-sqlite3');
const READY = /\?\s*for\s*shortcuts/; // claude moves the cursor over blanks (no spaces in the stripped text)

const wakeups = (pid) =>
  Number(/voluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);

/** hello → the screen frame, over the host's socket (the PTY protocol of src/ptyd/framing.ts). */
function screenLatency(socketPath) {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const sock = net.createConnection(socketPath);
    let buf = Buffer.alloc(0);
    sock.once('connect', () => {
      const body = Buffer.from(JSON.stringify({ v: 1, mode: 'view', cols: 100, rows: 30 }));
      const head = Buffer.alloc(5);
      head.writeUInt8(1, 0);
      head.writeUInt32BE(body.length, 1);
      sock.write(Buffer.concat([head, body]));
    });
    sock.on('data', (d) => {
      buf = Buffer.concat([buf, d]);
      while (buf.length >= 5) {
        const len = buf.readUInt32BE(1);
        if (buf.length < 5 + len) break;
        const type = buf[0];
        const frame = buf.subarray(5, 5 + len);
        buf = buf.subarray(5 + len);
        if (type === 17) {
          sock.destroy();
          resolve({ ms: Number(process.hrtime.bigint() - t0) / 1e6, bytes: frame.length });
          return;
        }
        if (type === 20) reject(new Error(frame.toString()));
      }
    });
    sock.once('error', reject);
  });
}

const h = makeUiHome({ agents: 1, status: 'done' });
let hostPid;
try {
  prepareClaudeHome(h);
  writeFileSync(path.join(h.home, 'config.yaml'), `claude:\n  binary: ${claudeBinary()}\n`);
  const id = h.sessions[0].id;

  // Cold: the PTY server and claude start.
  const cold = spawnTerm(process.execPath, [cli, 'talk', id], { cwd: h.project, env: h.env, cols: 100, rows: 30 });
  const coldMs = await cold.waitFor(READY, { timeoutMs: 60_000 });
  const db = new Database(path.join(h.home, 'sessions.db'), { readonly: true });
  const row = db.prepare("SELECT pid FROM runtime_process WHERE kind = 'pty' AND exited_at IS NULL").get();
  const ev = db.prepare("SELECT payload FROM events WHERE kind = 'pty.start' ORDER BY id DESC").get();
  db.close();
  hostPid = row.pid;
  const claudePid = JSON.parse(ev.payload).pid;
  cold.write('\x1d');
  await cold.stop();

  // Re-attach to the live session, N times; and `node -e 0` under the same PTY for scale.
  const node = [];
  const attach = [];
  for (let i = 0; i < N + 2; i++) {
    const t0 = process.hrtime.bigint();
    const n = spawnTerm(process.execPath, ['-e', '0'], { cwd: h.project, env: h.env });
    await n.stop('SIGCONT'); // waits for the exit (SIGCONT changes nothing)
    if (i >= 2) node.push(Number(process.hrtime.bigint() - t0) / 1e6);
    const t = spawnTerm(process.execPath, [cli, 'talk', id], { cwd: h.project, env: h.env, cols: 100, rows: 30 });
    const ms = await t.waitFor(READY);
    if (i >= 2) attach.push(ms);
    t.write('\x1d');
    await t.stop('SIGCONT');
  }

  // Switch: the screen over the socket (found among the unix sockets the host listens on).
  const sock = readFileSync(`/proc/${hostPid}/net/unix`, 'utf8')
    .split('\n')
    .map((l) => l.trim().split(/\s+/).at(-1))
    .find((p) => p && p.endsWith(`/p/${id}.sock`));
  const switches = [];
  let screenBytes = 0;
  for (let i = 0; i < N + 2; i++) {
    const r = await screenLatency(sock);
    screenBytes = r.bytes;
    if (i >= 2) switches.push(r.ms);
  }

  // Idle: nothing attached, claude at its prompt. A viewer counts what claude writes meanwhile
  // (the host wakes only for that). Settle first: V8's after-start-up GC rounds are not ours.
  let idleBytes = 0;
  const watcher = net.createConnection(sock);
  watcher.once('connect', () => {
    const body = Buffer.from(JSON.stringify({ v: 1, mode: 'view', cols: 100, rows: 30 }));
    const head = Buffer.alloc(5);
    head.writeUInt8(1, 0);
    head.writeUInt32BE(body.length, 1);
    watcher.write(Buffer.concat([head, body]));
  });
  watcher.on('data', (d) => (idleBytes += d.length));
  await sleep(Number(process.env.BENCH_SETTLE_S ?? 10) * 1000);
  idleBytes = 0; // the welcome and screen frames
  const h0 = cpuTicks(hostPid);
  const c0 = cpuTicks(claudePid);
  const w0 = wakeups(hostPid);
  await sleep(IDLE_S * 1000);
  const hostPct = ((cpuTicks(hostPid) - h0) / CLK_TCK / IDLE_S) * 100;
  const claudePct = ((cpuTicks(claudePid) - c0) / CLK_TCK / IDLE_S) * 100;
  const hostWakeups = wakeups(hostPid) - w0;
  watcher.destroy();

  const a = stats(attach);
  const nd = stats(node);
  const sw = stats(switches);
  console.log(
    `talk: cold start to claude's prompt ${fmt(coldMs, 0)} ms · re-attach to the screen median ${fmt(a.median)} ms (p90 ${fmt(a.p90)}), ` +
      `${fmt(a.median / nd.median, 2)}× node -e 0 (${fmt(nd.median)} ms) · ` +
      `switch (hello → screen frame, ${screenBytes} bytes) median ${fmt(sw.median, 2)} ms (p90 ${fmt(sw.p90, 2)}; goal ≤ 50 ms) · ` +
      `idle ${IDLE_S}s: host CPU ${fmt(hostPct, 2)} %, ${hostWakeups} wake-ups for ${idleBytes} bytes claude wrote (goal: no timers); its claude ${fmt(claudePct, 2)} %`,
  );
} finally {
  if (!hostPid) {
    // Failed before we read it: whatever PTY host the cold start left must not outlive the bench.
    try {
      const db = new Database(path.join(h.home, 'sessions.db'), { readonly: true });
      hostPid = db.prepare("SELECT pid FROM runtime_process WHERE kind = 'pty' AND exited_at IS NULL").get()?.pid;
      db.close();
    } catch {
      /* no DB yet */
    }
  }
  if (hostPid) {
    try {
      process.kill(hostPid, 'SIGTERM');
    } catch {
      /* gone */
    }
    for (let i = 0; i < 100; i++) {
      try {
        process.kill(hostPid, 0);
        await sleep(50);
      } catch {
        break;
      }
    }
  }
  h.cleanup();
}

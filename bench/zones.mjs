// Agents in a zone (docs/zones.md), against a real sshd in a network namespace this bench makes
// (test/support/zone-host.ts, bundled here with esbuild): a second Unix user on its own address,
// this checkout's dist/ and the pinned claude against the Messages-API stand-in.
// Goals (issue 34):
//   start → working, with the link's connection up: ≤ a local start + one ssh round trip + 300 ms
//   a streamed token visible here ≤ 50 ms after the zone's log has it
//   an idle link: no traffic but ssh's keep-alives
// and, for docs/zones.md, the link's bytes per second while one agent streams.
// Needs root (ip netns, useradd) and /usr/sbin/sshd.
//   node bench/zones.mjs      (after `npm run build`)
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync, rmSync, statSync, watch, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { createRequire } from 'node:module';
import { build } from 'esbuild';
import { cli, fmt, repo, rssMiB, sleep, stats } from './_ui-support.mjs';

const require = createRequire(path.join(repo, 'package.json'));
const Database = require('better-sqlite3');
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 35);

/** The test's zone host and stand-in, bundled so this plain-JS bench can run them. */
async function loadSupport() {
  // Beside this file, so its packages resolve from the repository's node_modules; removed once loaded.
  const out = path.join(repo, 'bench', `.zone-support-${process.pid}.mjs`);
  const support = path.join(repo, 'test', 'support');
  await build({
    stdin: {
      contents: "export * from './zone-host.ts'; export * from './mock-anthropic.ts'; export * from './temp-home.ts';",
      resolveDir: support,
      loader: 'ts',
    },
    outfile: out,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    // Their paths are worked out from their own file's place.
    define: { 'import.meta.url': JSON.stringify(pathToFileURL(path.join(support, 'zone-host.ts')).href) },
    logLevel: 'error',
  });
  try {
    return await import(pathToFileURL(out).href);
  } finally {
    rmSync(out, { force: true });
  }
}

const S = await loadSupport();
const problem = S.zoneHostProblem();
if (problem) throw new Error(problem);
const plan = S.planZone();
const removeNetwork = S.makeZoneNetwork(plan);
const mock = await S.startMockAnthropic({
  host: plan.apiHost,
  responder: (r) => {
    if (r.isToolResult) return { text: 'ok' };
    if (r.prompt.startsWith('run: ')) return { text: 'Running it.', bash: { command: r.prompt.slice(5) } };
    if (r.prompt.startsWith('hold')) return { hang: true }; // working until interrupted
    if (r.prompt.startsWith('stream')) return { text: `${'token '.repeat(600)}end`, chunks: 300, delayMs: 50 };
    return { text: 'done' };
  },
});
const zone = await S.startZoneHost(plan, mock.url);
const h = S.makeTempHome({ baseUrl: mock.url });
const claude = path.join(path.dirname(require.resolve('@anthropic-ai/claude-code/package.json')), 'bin', 'claude.exe');
writeFileSync(
  path.join(h.klaudeHome, 'config.yaml'),
  `claude:\n  binary: ${claude}\nnotify:\n  desktop: false\n${zone.zoneYaml('build', '', { keepAlive: 'default' })}\n`,
);
S.cloneToZone(zone, h.projectDir);

/** `klaude <args>`, awaited: the stand-in answers from this process, so nothing here may block its loop meanwhile. */
const k = (args) =>
  new Promise((resolve, reject) =>
    execFile(
      process.execPath,
      [cli, ...args],
      { cwd: h.projectDir, env: h.env, encoding: 'utf8', maxBuffer: 64 << 20 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`klaude ${args.join(' ')}: ${stderr || err.message}`)) : resolve(stdout),
    ),
  );
const db = () => new Database(path.join(h.klaudeHome, 'sessions.db'), { readonly: true });
const statusOf = (d, id) => d.prepare('SELECT status FROM sessions WHERE id = ?').get(id)?.status;

/** ms from running `klaude start … -d` to its row saying `running` (polled every 2 ms, in this process). */
async function startToWorking(zoneArgs) {
  const t0 = performance.now();
  const out = JSON.parse(await k(['start', 'general', `hold ${Math.random()}`, '--json', ...zoneArgs]));
  const id = out.sessions[0].id;
  const d = db();
  try {
    while (statusOf(d, id) !== 'running') {
      if (performance.now() - t0 > 60_000) throw new Error(`${id} never ran`);
      await sleep(2);
    }
  } finally {
    d.close();
  }
  const ms = performance.now() - t0;
  await k(['interrupt', id]);
  return ms;
}

/** One multiplexed ssh round trip, as the link's own connection makes it. */
function sshRoundTrip() {
  const argv = [
    '-F',
    zone.sshConfig,
    '-o',
    'ControlMaster=auto',
    '-o',
    `ControlPath=${path.join(h.klaudeHome, 'run', 'zones', 'cm-%C')}`,
    '-o',
    'BatchMode=yes',
    '--',
    zone.alias,
    'true',
  ];
  const t0 = performance.now();
  execFileSync('ssh', argv);
  return performance.now() - t0;
}

try {
  // The link up and warm: one agent started and finished in the zone.
  await k(['start', 'general', 'warm up', '--zone', 'build']);
  const local = [];
  const remote = [];
  const rtt = [];
  for (let i = 0; i < RUNS; i++) {
    local.push(await startToWorking([]));
    remote.push(await startToWorking(['--zone', 'build']));
    rtt.push(sshRoundTrip());
  }
  const [l, r, t] = [stats(local), stats(remote), stats(rtt)];
  const goal = l.median + t.median + 300;
  console.log(
    `zones: start → working: zone ${fmt(r.median)} ms (min ${fmt(r.min)}), here ${fmt(l.median)} ms, ssh round trip ${fmt(t.median)} ms` +
      ` → zone − here − rtt = ${fmt(r.median - l.median - t.median)} ms (goal ≤ 300: ${r.median <= goal ? 'ok' : 'OVER'})`,
  );

  // A streaming agent: each line's arrival here against the time the zone's writer stamped it.
  const before = zone.linkCounters();
  const t0 = performance.now();
  const id = JSON.parse(await k(['start', 'general', 'stream please', '--json', '--zone', 'build'])).sessions[0].id;
  const logPath = (() => {
    const d = db();
    try {
      return d.prepare('SELECT log_path AS p FROM sessions WHERE id = ?').get(id)?.p;
    } finally {
      d.close();
    }
  })();
  const lags = [];
  let seen = 0;
  let logBytes = 0;
  await new Promise((resolve, reject) => {
    const look = () => {
      let text;
      try {
        text = readFileSync(logPath, 'utf8');
      } catch {
        return;
      }
      const now = Date.now();
      const lines = text.slice(seen).split('\n');
      const rest = lines.pop();
      for (const line of lines) {
        const e = JSON.parse(line);
        if (e.type === 'text_delta' || e.type === 'text') lags.push(now - e.ts);
        if (e.type === 'done') {
          w.close();
          logBytes = statSync(logPath).size;
          resolve();
        }
      }
      seen = text.length - (rest?.length ?? 0);
    };
    const w = watch(logPath, look);
    setTimeout(() => reject(new Error('the stream did not end')), 120_000).unref();
    look();
  });
  const secs = (performance.now() - t0) / 1000;
  const after = zone.linkCounters();
  const g = stats(lags);
  const max = Math.max(...lags);
  console.log(
    `zones: a streamed line → here: median ${fmt(g.median)} ms, p90 ${fmt(g.p90)} ms, max ${fmt(max)} ms over ${lags.length} lines (goal ≤ 50: ${g.p90 <= 50 ? 'ok' : 'OVER'})`,
  );
  const bytes = after.rxBytes + after.txBytes - before.rxBytes - before.txBytes;
  console.log(
    `zones: one streaming agent: ${fmt(bytes / secs / 1024)} KiB/s on the link (both ways, ssh framing included) for ${fmt(logBytes / secs / 1024)} KiB/s of log`,
  );

  // What a zone costs in processes: the link here, the serve over there (resident memory now, warm).
  const linkPid = JSON.parse(await k(['zone', 'list', '--json'])).zones[0]?.link?.pid;
  const servePids = zone.userPids().filter((p) => {
    try {
      const argv = readFileSync(`/proc/${p}/cmdline`, 'utf8').split('\0');
      return argv[0] !== 'sh' && argv.includes('__zone-serve');
    } catch {
      return false;
    }
  });
  console.log(
    `zones: resident memory: the link here ${linkPid ? fmt(rssMiB(linkPid)) : '?'} MiB, the serve over there ${servePids.map((p) => fmt(rssMiB(p))).join(', ') || '?'} MiB`,
  );

  // Idle: an agent waiting for an answer keeps the link up; nothing should cross but keep-alives.
  const waiting = JSON.parse(await k(['start', 'general', `run: python3 -c "print(1)"`, '--json', '--zone', 'build']))
    .sessions[0].id;
  const d = db();
  while (statusOf(d, waiting) !== 'waiting') await sleep(50);
  d.close();
  await sleep(3000);
  const i0 = zone.linkCounters();
  await sleep(IDLE_S * 1000);
  const i1 = zone.linkCounters();
  const pk = i1.rxPackets + i1.txPackets - i0.rxPackets - i0.txPackets;
  const by = i1.rxBytes + i1.txBytes - i0.rxBytes - i0.txBytes;
  console.log(
    `zones: idle link, ${IDLE_S} s with an agent waiting: ${pk} packets, ${by} bytes (ssh keep-alives every 15 s: ~${Math.floor(IDLE_S / 15) * 4} packets with their ACKs)`,
  );
  console.log(
    `zones: load average ${loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')} on ${cpus().length} cores`,
  );
  await k(['interrupt', waiting]);
} finally {
  h.cleanup();
  zone.close();
  await mock.close();
  removeNetwork();
}

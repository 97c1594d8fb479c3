// klaude's own share of a checkout (docs/ARCHITECTURE.md, Performance budget: under 100 ms plus the grace): from the
// checkout request to the new foreground child spawned, against a stand-in "claude" that dies
// at once on SIGTERM (so no grace is spent and claude's own start-up is not counted).
// Also the whole `klaude checkout <id>` command as Claude's Bash tool runs it, vs `node -e 0`.
//   node bench/checkout.mjs        (after `npm run build`; BENCH_N=40 for more runs)
import './_env.mjs';
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cli = path.join(repo, 'dist', 'cli.js');
const N = Number(process.env.BENCH_N ?? 20);
const WARMUP = 3;
const Database = createRequire(path.join(repo, 'package.json'))('better-sqlite3');
const pty = createRequire(path.join(repo, 'package.json'))('node-pty');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const stats = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { median: q(0.5), p90: q(0.9) };
};
const fmt = (n) => n.toFixed(1);

/** One request over the control socket (NDJSON, protocol v1); resolves with the result. */
function request(socketPath, action, payload) {
  return new Promise((resolve, reject) => {
    const sock = net.createConnection(socketPath);
    let buf = '';
    sock.once('connect', () => sock.write(`${JSON.stringify({ v: 1, id: 'bench', action, payload })}\n`));
    sock.on('data', (d) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl < 0) return;
      const frame = JSON.parse(buf.slice(0, nl));
      sock.destroy();
      if (frame.ok) resolve(frame.result);
      else reject(new Error(`${frame.error.code}: ${frame.error.message}`));
    });
    sock.once('error', reject);
  });
}

const root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-bench-checkout-')));
let supervisor;
try {
  const home = path.join(root, 'klaude');
  const project = path.join(root, 'project');
  mkdirSync(project, { recursive: true });
  mkdirSync(home, { recursive: true });
  const stub = path.join(root, 'claude-stub');
  writeFileSync(stub, '#!/bin/sh\nexec sleep 600\n');
  chmodSync(stub, 0o755);
  writeFileSync(path.join(home, 'config.yaml'), `claude:\n  binary: ${stub}\nswitch:\n  graceSeconds: 1\n`);
  const env = { PATH: process.env.PATH, HOME: root, KLAUDE_HOME: home };

  // The supervisor owns a terminal (it refuses to start without one): a real PTY.
  const term = pty.spawn(process.execPath, [cli], { name: 'xterm-256color', cols: 100, rows: 30, cwd: project, env });
  let stderr = '';
  term.onData((d) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise((r) => term.onExit(r));
  supervisor = { kill: (sig) => term.kill(sig), exited };
  const dbFile = path.join(home, 'sessions.db');
  let inst;
  for (let i = 0; i < 500 && !inst; i++) {
    await sleep(20); // start-up, not measured
    if (!existsSync(dbFile)) continue;
    const db = new Database(dbFile, { readonly: true });
    try {
      inst = db.prepare("SELECT * FROM instances WHERE status = 'running'").get();
    } catch {
      /* the supervisor is still creating the schema */
    } finally {
      db.close();
    }
    if (inst && !existsSync(inst.socket_path)) inst = undefined;
  }
  if (!inst) throw new Error(`the supervisor did not come up: ${stderr}`);
  await request(inst.socket_path, 'ping', {});

  // Two agent sessions of the root, each with a Claude session to resume.
  const db = new Database(dbFile);
  const targets = ['01BENCH0000000000000AAAAAA', '01BENCH0000000000000BBBBBB'];
  for (const id of targets) {
    db.prepare(
      "INSERT INTO sessions (id, project_id, parent_id, type, runtime, status) VALUES (?, ?, ?, 'general', 'claude', 'idle')",
    ).run(id, inst.project_id, inst.root_session_id);
    db.prepare(
      "INSERT INTO claude_session_links (klaude_session_id, claude_session_id, source, started_at) VALUES (?, ?, 'headless', ?)",
    ).run(id, randomUUID(), Date.now());
  }
  db.close();

  const inProcess = [];
  for (let i = 0; i < N + WARMUP; i++) {
    const t0 = process.hrtime.bigint();
    const r = await request(inst.socket_path, 'checkout', { target: targets[i % 2] });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.sessionId !== targets[i % 2]) throw new Error(`checked out ${r.sessionId}`);
    if (i >= WARMUP) inProcess.push(ms);
  }

  const floor = [];
  const command = [];
  for (let i = 0; i < N + WARMUP; i++) {
    let t0 = process.hrtime.bigint();
    spawnSync(process.execPath, ['-e', '0'], { cwd: project, env });
    const f = Number(process.hrtime.bigint() - t0) / 1e6;
    t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [cli, 'checkout', targets[i % 2].slice(-8)], {
      cwd: project,
      env,
      encoding: 'utf8',
    });
    const c = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`klaude checkout failed: ${r.stderr}`);
    if (i >= WARMUP) {
      floor.push(f);
      command.push(c);
    }
  }

  const a = stats(inProcess);
  console.log(
    `checkout (request → new child spawned, stand-in claude, no grace spent): ${fmt(a.median)} ms (p90 ${fmt(a.p90)}) (goal < 100 ms${a.median < 100 ? ', met' : ', MISSED'}; n=${N})`,
  );
  const b = stats(command);
  const f = stats(floor);
  console.log(
    `klaude checkout <id> command: ${fmt(b.median)} ms (p90 ${fmt(b.p90)}) vs node -e 0 ${fmt(f.median)} ms → ${(b.median / f.median).toFixed(2)}×; n=${N}`,
  );
  await request(inst.socket_path, 'stop', {});
  await supervisor.exited;
  supervisor = undefined;
} finally {
  supervisor?.kill('SIGKILL');
  rmSync(root, { recursive: true, force: true });
}

// Who answered a permission request where the kernel cannot name the sender (macOS, the BSDs, a
// minimal container: no /proc or no `ss`), stood for by hiding them from a real control socket
// (lib/socket-peer.ts's PeerSource): a pid the client states never counts, whoever's it is; the
// dashboard and the web server prove themselves by the key each holds while it runs
// (ownership/person-key.ts), the web's answer only for a signed-in page. And where the kernel can
// be asked (Linux), a client that wrote its answer and hung up at once is refused.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { openDb, type Db } from '../../src/db/client.js';
import { createInstance } from '../../src/db/repos/instances.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { projectHash } from '../../src/config/paths.js';
import type { PeerSource } from '../../src/lib/socket-peer.js';
import { identifyAnswerer, verdictOf, type Answerer } from '../../src/ownership/answerer.js';
import { processTable } from '../../src/lib/process-table.js';
import { heldPersonKey, holdPersonKey, personKeyDir } from '../../src/ownership/person-key.js';
import { claimWebRecord, dropWebRecord } from '../../src/ownership/web-record.js';
import { createPageSession, pageSessionId } from '../../src/ownership/web-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { statSync } from 'node:fs';
import { until } from '../support/until.js';
import { agentSocketPath } from '../../src/control/agent-socket.js';
import { addApproval } from '../../src/db/repos/approvals.js';
import { recordProcess } from '../../src/db/repos/processes.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { runKlaude } from '../support/klaude-bin.js';
import { http, signIn, startWeb } from '../support/web-client.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** This system as macOS or a minimal container has it: no /proc to read, no `ss` to run. */
const hidden = (home: TempHome): PeerSource => ({ procRoot: path.join(home.root, 'no-proc'), ss: '/nonexistent/ss' });

interface Setup {
  home: TempHome;
  db: Db;
  sock: string;
  dashboardId: string;
  /** Every answer's sender, as the handler found it. */
  seen: Answerer[];
}

/** A home with a running dashboard (this process) and a control socket whose `answer` says who sent it. */
async function setup(hide: boolean): Promise<Setup> {
  const home = makeTempHome({ prefix: 'klaude-unverified-' });
  cleanups.push(() => home.cleanup());
  const db = openDb(home.klaudeHome);
  cleanups.push(() => db.close());
  const hash = projectHash(home.projectDir);
  ensureProject(db, { hash, rootPath: home.projectDir });
  const sock = path.join(home.root, 'a.sock');
  const dash = createInstance(db, {
    projectId: hash,
    pid: process.pid,
    socketPath: sock,
    cwd: home.projectDir,
    mode: 'ui',
  });
  const seen: Answerer[] = [];
  const server: ControlServer = await startControlServer({
    socketPath: sock,
    ...(hide ? { peerSource: hidden(home) } : {}),
    handlers: {
      answer: (p, ctx) => {
        const who = identifyAnswerer(db, ctx.peer(), p, home.env);
        seen.push(who);
        return who as never;
      },
    },
  });
  cleanups.push(() => server.close());
  return { home, db, sock, dashboardId: dash.id, seen };
}

/** Send answer frames from another process, one connection; `hangUp`: write and exit at once. */
function send(sock: string, payloads: object[], hangUp = false): Promise<Answerer[]> {
  const frames = payloads
    .map((payload, i) => JSON.stringify({ v: 1, id: String(i + 1), action: 'answer', payload }))
    .join('\n');
  const script = hangUp
    ? `const s = require('net').connect(${JSON.stringify(sock)}, () => s.write(${JSON.stringify(`${frames}\n`)}, () => process.exit(0)));`
    : `const s = require('net').connect(${JSON.stringify(sock)}, () => s.write(${JSON.stringify(`${frames}\n`)}));
       let buf = ''; const got = [];
       s.on('data', (c) => { buf += c; for (const l of buf.split('\\n').slice(0, -1)) if (l.trim()) got.push(JSON.parse(l));
         buf = buf.slice(buf.lastIndexOf('\\n') + 1);
         if (got.length >= ${payloads.length}) { console.log(JSON.stringify(got)); process.exit(0); } });`;
  return new Promise((resolve, reject) => {
    const c = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    c.stdout.on('data', (d: Buffer) => (out += d.toString()));
    c.on('error', reject);
    c.on('exit', () => {
      if (hangUp) return resolve([]);
      const frames = JSON.parse(out) as { id: string; result: Answerer }[];
      resolve(frames.sort((a, b) => Number(a.id) - Number(b.id)).map((f) => f.result));
    });
  });
}

const base = { sessionId: 'S', behavior: 'allow' };

describe('answers where the peer cannot be asked (no /proc, no ss)', () => {
  it("a claimed pid is refused, the dashboard's own included, with where to answer instead", async () => {
    const s = await setup(true);
    const [claimed, none] = await send(s.sock, [{ ...base, pid: process.pid }, base]);
    for (const who of [claimed, none]) {
      expect(who).toMatchObject({ person: false, by: 'unknown (unverified)' });
      expect(who).toMatchObject({ why: expect.stringContaining('cannot tell klaude which process sent it') });
      expect(who).toMatchObject({ hint: expect.stringMatching(/dashboard.*web page/) });
    }
  });

  it("the dashboard's key counts as the person while its instance runs; a wrong or foreign key does not", async () => {
    const s = await setup(true);
    const held = holdPersonKey(s.home.klaudeHome, s.home.env, s.dashboardId);
    cleanups.push(held.release);
    const key = heldPersonKey()!;
    const file = path.join(personKeyDir(s.home.klaudeHome, s.home.env), `${s.dashboardId}.key`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const [good, wrong, other] = await send(s.sock, [
      { ...base, key },
      { ...base, key: { holder: key.holder, secret: 'x'.repeat(43) } },
      { ...base, key: { holder: '01OTHERINSTANCE', secret: key.secret } },
    ]);
    expect(good).toEqual({ person: true, by: 'person in the dashboard (by its key)' });
    expect(wrong).toMatchObject({ person: false, hint: expect.stringContaining('dashboard') });
    expect(other).toMatchObject({ person: false });
    held.release();
    const [after] = await send(s.sock, [{ ...base, key }]);
    expect(after).toMatchObject({ person: false });
  });

  it("the web server's key counts only with a signed-in page, and records what its sign-in proved", async () => {
    const s = await setup(true);
    expect(claimWebRecord(s.home.klaudeHome, '127.0.0.1')).toEqual({ claimed: true });
    cleanups.push(() => dropWebRecord(s.home.klaudeHome));
    const held = holdPersonKey(s.home.klaudeHome, s.home.env, 'web');
    cleanups.push(held.release);
    const key = heldPersonKey()!;
    const cookie = createPageSession(
      s.home.klaudeHome,
      { place: 'at /dev/pts/3', env: {}, inv: null, madeAt: 1 },
      '127.0.0.1',
    );
    const [page, noPage] = await send(s.sock, [
      { ...base, key, webSession: pageSessionId(cookie) },
      { ...base, key },
    ]);
    expect(page).toEqual({
      person: true,
      by: 'person (web: signed in from 127.0.0.1, link made at /dev/pts/3) (by its key)',
    });
    expect(noPage).toMatchObject({ person: false, why: 'the web server sent it for no signed-in page' });
  });
});

describe('answers where the peer can be asked (this Linux)', () => {
  it('a client that wrote its answer and hung up is refused, whatever pid it claims', async () => {
    const s = await setup(false);
    // Connected, written and exited while this process (the server) is blocked: it reads the
    // answer only once nobody holds the other end, as a runtime busy elsewhere would find it.
    const frame = JSON.stringify({ v: 1, id: '1', action: 'answer', payload: { ...base, pid: process.pid } });
    const c = spawnSync(process.execPath, [
      '-e',
      `const s = require('net').connect(${JSON.stringify(s.sock)}, () => s.write(${JSON.stringify(`${frame}\n`)}, () => process.exit(0)));`,
    ]);
    expect(c.status).toBe(0);
    await until('the answer was read', () => s.seen.length === 1, 10_000);
    expect(s.seen[0]).toMatchObject({ person: false, by: 'unknown', why: expect.stringContaining('hung up') });
    // A client that stays for its answer is named by the kernel, and judged by the usual rules.
    const [stayed] = await send(s.sock, [{ ...base, pid: process.pid }]);
    expect(stayed).toMatchObject({ person: false, why: 'it was not sent from an interactive terminal' });
  });
});

describe('the process tree where /proc is hidden (ps)', () => {
  it('reads parents, groups and terminals from ps as /proc has them, and judges by them alike', () => {
    const home = makeTempHome({ prefix: 'klaude-unverified-' });
    cleanups.push(() => home.cleanup());
    const viaPs = processTable(path.join(home.root, 'no-proc'))!;
    const viaProc = processTable()!;
    const me = viaProc.get(process.pid)!;
    expect(viaPs.get(process.pid)).toMatchObject({ pid: process.pid, ppid: me.ppid, pgrp: me.pgrp, tpgid: me.tpgid });
    // A process under a recorded agent root is inside an agent by either table.
    const roots = new Map([[me.ppid, 'agent runtime']]);
    for (const t of [viaPs, viaProc])
      expect(verdictOf(t, roots, process.pid)).toMatchObject({
        inside: true,
        by: `agent (pid ${process.pid}, inside agent runtime pid ${me.ppid})`,
      });
    expect(verdictOf(viaPs, new Map(), process.pid)).toMatchObject({ inside: false });
  });
});

describe("the web server's answers, to a runtime that cannot ask", () => {
  it('carry its key and the page’s session: counted as the person, with what the sign-in proved', async () => {
    const home = makeTempHome({ prefix: 'klaude-unverified-' });
    cleanups.push(() => home.cleanup());
    const db = openDb(home.klaudeHome);
    cleanups.push(() => db.close());
    const hash = projectHash(home.projectDir);
    ensureProject(db, { hash, rootPath: home.projectDir });
    const s = createSession(db, { projectId: hash, type: 'general', status: 'waiting', prompt: 'asks' });
    addApproval(db, { sessionId: s.id, requestId: 'q1', toolName: 'Bash', summary: 'touch x' });
    // This process answers on the agent's socket as its runtime would where there is no /proc and
    // no ss; a process of its own stands for the runtime's pid (so the session's runtime is live).
    const stand = spawn('sleep', ['600'], { stdio: 'ignore' });
    cleanups.push(() => void stand.kill());
    recordProcess(db, { klaudeSessionId: s.id, pid: stand.pid!, kind: 'runtime' });
    const seen: Answerer[] = [];
    const server = await startControlServer({
      socketPath: agentSocketPath(home.klaudeHome, hash, s.id, home.env),
      peerSource: hidden(home),
      handlers: {
        answer: (p, ctx) => {
          seen.push(identifyAnswerer(db, ctx.peer(), p, home.env));
          return { approvalId: 1, requestId: 'q1', tool: 'Bash', summary: 'touch x', pending: 0 };
        },
      },
    });
    cleanups.push(() => server.close());

    const w = await startWeb(home.env, home.projectDir);
    cleanups.push(async () => void (await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir })));
    expect(existsSync(path.join(personKeyDir(home.klaudeHome, home.env), 'web.key'))).toBe(true);
    const cookie = await signIn(w);
    const r = await http(w.port, 'POST', `/api/sessions/${s.id}/approve`, {
      headers: { cookie, origin: w.origin },
      body: {},
    });
    expect(r.status, r.body).toBe(200);
    expect(seen).toEqual([
      { person: true, by: 'person (web: signed in from 127.0.0.1, link made in the test) (by its key)' },
    ]);
    // Stopped, the server takes its key with it.
    await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir });
    expect(existsSync(path.join(personKeyDir(home.klaudeHome, home.env), 'web.key'))).toBe(false);
  });
});

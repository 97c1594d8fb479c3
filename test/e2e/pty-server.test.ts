// One PTY server per KLAUDE_HOME hosts every live PTY session (tmux's model), with the real claude
// against the stand-in: two starters racing make one server; both sessions' rows carry its pid and
// each is viewable; each CLI runs with its own starter's env; stopping one through the server
// leaves the other running; the server exits after its last session; SIGKILLed, it takes every
// hosted claude with it (watchdogs), reconcile settles the sessions and talk resumes the conversation.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectHash } from '../../src/config/paths.js';
import { shortId } from '../../src/core/ids.js';
import { listPtyServer, spawnPtyHost, stopPtySession, type StartedHost } from '../../src/pty/launch.js';
import { openPtyViewer, type PtyViewer } from '../../src/pty/viewer.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import type { PtySession } from '../support/pty-driver.js';
import { READY, submit, waitForDb } from './supervisor-helpers.js';
import {
  alive,
  claudePidOf,
  ptyRows,
  sessionStatus,
  sessionWithConversation,
  startTalk,
  stopHosts,
} from './talk-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes();
let home: AgentHome;
let a: { id: string; claudeId: string };
let b: { id: string; claudeId: string };
const terms: PtySession[] = [];
const claudes: number[] = [];

beforeAll(async () => {
  home = fx.home({ supervisor: true });
  a = await sessionWithConversation(home, 'server-marker-a');
  b = await sessionWithConversation(home, 'server-marker-b');
});
afterAll(async () => {
  for (const t of terms) await t.dispose();
  if (home && a && b) {
    await stopHosts(home, a.id);
    await stopHosts(home, b.id);
  }
  for (const pid of claudes) if (alive(pid)) process.kill(pid, 'SIGKILL');
});

const start = (sessionId: string, mark: string): Promise<StartedHost> =>
  spawnPtyHost({
    home: home.klaudeHome,
    sessionId,
    inv: { node: process.execPath, cli: KLAUDE_CLI },
    env: { ...home.env, KLAUDE_TEST_STARTER: mark },
    cwd: home.projectDir,
    size: { cols: 100, rows: 30 },
  }).then((h) => {
    claudes.push(h.pid);
    return h;
  });

/** The session's screen through a read-only viewer, once it shows `text`. */
async function viewShows(sessionId: string, text: string): Promise<void> {
  const hash = projectHash(home.projectDir);
  let seen: () => void = () => undefined;
  const shown = new Promise<void>((resolve) => (seen = resolve));
  let v: PtyViewer | null = null;
  const check = (): void => {
    if (v?.snapshot().lines.join('\n').includes(text)) seen();
  };
  v = await openPtyViewer(home.klaudeHome, hash, sessionId, { onUpdate: check }, home.env);
  try {
    check();
    await Promise.race([
      shown,
      new Promise((_, reject) => setTimeout(() => reject(new Error(`${sessionId} never showed ${text}`)), 45_000)),
    ]);
  } finally {
    v.close();
  }
}

const environ = (pid: number): string => readFileSync(`/proc/${pid}/environ`, 'utf8');
const serverLog = (): string => readFileSync(join(home.klaudeHome, 'klaude.log'), 'utf8');
/** The `sh` watchdogs whose parent is `server` (one for all its CLIs: ownership/watchdog-pool.ts). */
const watchdogsOf = (server: number): number[] =>
  readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const argv = readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
        const ppid = /\nPPid:\s+(\d+)/.exec(readFileSync(`/proc/${d}/status`, 'utf8'))?.[1];
        return argv.includes('klaude-watchdog') && ppid === String(server);
      } catch {
        return false;
      }
    })
    .map(Number);

describe('the PTY server', () => {
  it('two racing starters get one server that hosts both sessions, each with its starter’s env; stopping one leaves the other', async () => {
    const [ha, hb] = await Promise.all([start(a.id, 'starter-a'), start(b.id, 'starter-b')]);
    expect(ha.hostPid).toBe(hb.hostPid);
    expect(ha.pid).not.toBe(hb.pid);
    const server = await listPtyServer(home.klaudeHome, home.env);
    expect(server?.pid).toBe(ha.hostPid);
    expect(server?.sessions.sort()).toEqual([a.id, b.id].sort());
    // Both rows carry the one server's pid; no other klaude process runs for them.
    expect(ptyRows(home, a.id).map((r) => r.pid)).toEqual([ha.hostPid]);
    expect(ptyRows(home, b.id).map((r) => r.pid)).toEqual([ha.hostPid]);
    expect(readFileSync(`/proc/${ha.hostPid}/cmdline`, 'utf8').split('\0')).toContain('__ptyd');
    // Exactly one server started (a racing starter's server, if any, found it listening and left).
    expect(serverLog().match(/\[ptyd \d+\] PTY server started/g)).toHaveLength(1);
    // Both starters found no server (they asked in the same tick) and started one: one lost.
    expect(serverLog()).toContain('another PTY server already listens');
    // The claudes are guarded by one watchdog owned by the server, and the log names each session.
    expect(watchdogsOf(ha.hostPid)).toHaveLength(1);
    expect(serverLog()).toContain(`[ptyd:${shortId(a.id)} ${ha.hostPid}] starting PTY session`);
    expect(environ(ha.pid)).toContain('KLAUDE_TEST_STARTER=starter-a');
    expect(environ(hb.pid)).toContain('KLAUDE_TEST_STARTER=starter-b');
    expect(environ(ha.pid)).toContain(`KLAUDE_SESSION_ID=${a.id}`);

    await viewShows(a.id, 'Reply to: server-marker-a');
    await viewShows(b.id, 'Reply to: server-marker-b');

    // Asking again for a running session answers it as it is (no second claude).
    expect((await start(a.id, 'starter-a')).pid).toBe(ha.pid);

    expect(await stopPtySession(home.klaudeHome, a.id, home.env)).toBe(true);
    await waitForDb('a’s claude gone', () => !alive(ha.pid), 20_000);
    await waitForDb('a’s row ended', () => ptyRows(home, a.id)[0]!.exited_at !== null);
    expect(sessionStatus(home, a.id)).toBe('done');
    expect(alive(ha.hostPid)).toBe(true);
    expect(alive(hb.pid)).toBe(true);
    expect(ptyRows(home, b.id)[0]!.exited_at).toBeNull();
    expect((await listPtyServer(home.klaudeHome, home.env))?.sessions).toEqual([b.id]);
    expect(await stopPtySession(home.klaudeHome, a.id, home.env)).toBe(false);

    // b still talks.
    const t = startTalk(home, [b.id.slice(-6)]);
    terms.push(t);
    await t.waitForText(READY, { timeoutMs: 45_000 });
    await submit(t, 'still here');
    await t.waitForText('Reply to: still here', { timeoutMs: 45_000 });
    t.press('ctrl-]');
    expect((await t.exited).exitCode).toBe(0);

    // The last session ends: the server exits by itself a little later.
    expect(await stopPtySession(home.klaudeHome, b.id, home.env)).toBe(true);
    await waitForDb('b’s claude gone', () => !alive(hb.pid), 20_000);
    await waitForDb('the server gone after its last session', () => !alive(ha.hostPid), 30_000);
    expect(await listPtyServer(home.klaudeHome, home.env)).toBeNull();
  });

  it('SIGKILLed, it takes every hosted claude with it; reconcile settles both sessions and talk resumes the conversation', async () => {
    const ha = await start(a.id, 'starter-a');
    const hb = await start(b.id, 'starter-b');
    expect(hb.hostPid).toBe(ha.hostPid);
    await viewShows(b.id, 'Reply to: server-marker-b');
    process.kill(ha.hostPid, 'SIGKILL');
    // The watchdogs (owned by the server) end both CLIs: no orphan claude.
    await waitForDb('both claudes gone with their server', () => !alive(ha.pid) && !alive(hb.pid), 30_000);

    // Any listing command reconciles: the rows of the dead server are lost, the sessions over.
    const r = await home.k(['sessions', '--json']);
    expect(r.code, r.stderr).toBe(0);
    for (const id of [a.id, b.id]) {
      const rows = ptyRows(home, id);
      expect(rows.at(-1)!.exited_at).not.toBeNull();
      expect(rows.at(-1)!.signal).toBe('LOST');
      expect(sessionStatus(home, id)).not.toMatch(/^(running|idle)$/);
    }

    // Talking again starts a new server that resumes a's conversation.
    const t = startTalk(home, [a.id.slice(-6)]);
    terms.push(t);
    await t.waitForText('Reply to: server-marker-a', { timeoutMs: 45_000 });
    const rows = ptyRows(home, a.id);
    expect(rows.at(-1)!.exited_at).toBeNull();
    expect(rows.at(-1)!.pid).not.toBe(ha.hostPid);
    await submit(t, 'after the crash');
    await t.waitForText('Reply to: after the crash', { timeoutMs: 45_000 });
    const history = JSON.stringify(fx.mock.mainRequests().at(-1)!.body.messages);
    expect(history).toContain('server-marker-a');
    t.press('ctrl-]');
    expect((await t.exited).exitCode).toBe(0);

    // SIGTERM to the (new) server stops every CLI it hosts, records their ends, and it exits.
    const hb2 = await start(b.id, 'starter-b');
    const server2 = rows.at(-1)!.pid;
    expect(hb2.hostPid).toBe(server2);
    const ha2 = claudePidOf(home, a.id);
    process.kill(server2, 'SIGTERM');
    await waitForDb(
      'the server and both claudes gone',
      () => !alive(server2) && !alive(ha2) && !alive(hb2.pid),
      20_000,
    );
    for (const id of [a.id, b.id]) {
      expect(ptyRows(home, id).at(-1)!.exited_at).not.toBeNull();
      expect(ptyRows(home, id).at(-1)!.signal).not.toBe('LOST');
      expect(sessionStatus(home, id)).toBe('done');
    }
  });
});

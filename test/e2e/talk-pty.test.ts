// `klaude talk` with the real claude against the stand-in: the session's conversation in a PTY that
// keeps running in the background. Attach shows it and typed prompts are answered; Ctrl-] returns
// to the shell with claude still alive; re-attach shows the screen at once; a resize reaches claude;
// a second attach is refused; --view watches read-only; ///detach works; the PTY server cleans up
// when claude exits.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectHash } from '../../src/config/paths.js';
import { openDb } from '../../src/db/client.js';
import { recordProcess } from '../../src/db/repos/processes.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { listPtySessions, openPtyViewer } from '../../src/pty/viewer.js';
import { claudeAtLeast } from '../support/claude-package.js';
import type { PtySession } from '../support/pty-driver.js';
import { READY, submit, waitForDb, waitIdle } from './supervisor-helpers.js';
import {
  alive,
  claudePidOf,
  ptyRows,
  ruleOf,
  sessionStatus,
  sessionWithConversation,
  socketExists,
  startTalk,
  stopHosts,
} from './talk-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes();
let home: AgentHome;
let session: { id: string; claudeId: string };
const terms: PtySession[] = [];
const open = (t: PtySession): PtySession => {
  terms.push(t);
  return t;
};

beforeAll(async () => {
  home = fx.home({ supervisor: true });
  session = await sessionWithConversation(home, 'talk-marker-31');
});
afterAll(async () => {
  for (const t of terms) await t.dispose();
  // The PTY session left running (and whatever a failed test left) is stopped, claude with it.
  if (home && session) await stopHosts(home, session.id);
});

describe('klaude talk', () => {
  let claudePid: number;
  const short = () => session.id.slice(-6);

  it('shows the session’s conversation, answers a typed prompt, and Ctrl-] leaves it running', async () => {
    const t = open(startTalk(home, [short()]));
    await t.waitForText(READY, { timeoutMs: 45_000 });
    await t.waitForText('Reply to: talk-marker-31');
    await submit(t, 'hello over talk');
    await t.waitForText('Reply to: hello over talk', { timeoutMs: 45_000 });
    expect(JSON.stringify(fx.mock.mainRequests().at(-1)!.body.messages)).toContain('talk-marker-31');

    claudePid = claudePidOf(home, session.id);
    const [row] = ptyRows(home, session.id);
    expect(row).toMatchObject({ exited_at: null, is_current: 1 });
    expect(alive(row!.pid)).toBe(true);
    expect(alive(claudePid)).toBe(true);
    await waitForDb('the session idle after its turn (Stop hook)', () => sessionStatus(home, session.id) === 'idle');

    t.press('ctrl-]');
    const exit = await t.exited;
    expect(exit.exitCode).toBe(0);
    expect(t.text()).toContain(`detached from ${session.id.slice(-8)}`);
    // Back at the shell, the session runs on.
    expect(alive(claudePid)).toBe(true);
    expect(alive(row!.pid)).toBe(true);
    expect(socketExists(home, session.id)).toBe(true);
    expect(ptyRows(home, session.id)[0]).toMatchObject({ exited_at: null });
  });

  it('re-attach shows the current screen at once (claude draws nothing new when the size is unchanged)', async () => {
    const t = open(startTalk(home, [short()]));
    await t.waitForText('Reply to: hello over talk', { timeoutMs: 10_000 });
    // The screen came from the host's replay: claude was not restarted and has not been asked anything.
    expect(claudePidOf(home, session.id)).toBe(claudePid);
    expect(t.rawOutput()).toContain('Reply to: hello over talk');
    await waitIdle(t);
    // Ctrl-Z detaches too (claude cannot suspend inside its PTY).
    t.press('ctrl-z');
    expect((await t.exited).exitCode).toBe(0);
    expect(t.text()).toContain('Ctrl-Z detaches');
    expect(alive(claudePid)).toBe(true);
  });

  it('a second terminal gets E_SESSION_BUSY; --view watches read-only; a resize reaches claude', async () => {
    const t = open(startTalk(home, [short()], { cols: 100, rows: 30 }));
    await t.waitForText('Reply to: hello over talk', { timeoutMs: 10_000 });

    const second = open(startTalk(home, [short()]));
    const busy = await second.exited;
    expect(busy.exitCode).toBe(1);
    // The holder is named (the first talk's pid).
    expect(second.text().replace(/\s+/g, ' ')).toMatch(
      new RegExp(`is held by klaude talk in a terminal \\(pid ${t.pid}\\) \\[E_SESSION_BUSY\\]`),
    );
    expect(second.text()).toContain('--view');

    const viewer = open(startTalk(home, [short(), '--view']));
    await viewer.waitForText('Reply to: hello over talk', { timeoutMs: 10_000 });
    viewer.type('typed-in-viewer');
    await submit(t, 'seen by the viewer');
    await viewer.waitForText('Reply to: seen by the viewer', { timeoutMs: 45_000 });
    await t.waitForText('Reply to: seen by the viewer');
    expect(t.text()).not.toContain('typed-in-viewer');
    expect(fx.mock.mainRequests().every((r) => !r.prompt.includes('typed-in-viewer'))).toBe(true);
    viewer.type('q');
    expect((await viewer.exited).exitCode).toBe(0);
    expect(viewer.text()).toContain('stopped watching');

    // Resize the controlling terminal: claude lays out again at the new width.
    expect(t.text()).toMatch(ruleOf(100));
    t.resize(70, 20);
    await t.waitFor((s) => ruleOf(70).test(s) && !/^─{71,}$/m.test(s), 'claude redrawn at 70 columns', {
      timeoutMs: 20_000,
    });

    // ///detach typed as a line also detaches (and is not left in claude's input).
    await waitIdle(t);
    t.type('///detach');
    await t.waitForText('///detach');
    t.press('enter');
    expect((await t.exited).exitCode).toBe(0);
    expect(alive(claudePid)).toBe(true);
    expect(fx.mock.mainRequests().every((r) => !r.prompt.includes('///detach'))).toBe(true);

    // Re-attach at the new size: the input line is empty again.
    const again = open(startTalk(home, [short()], { cols: 70, rows: 20 }));
    await again.waitForText('Reply to: seen by the viewer', { timeoutMs: 10_000 });
    await waitIdle(again);
    expect(again.text()).not.toContain('///detach');
    again.press('ctrl-]');
    expect((await again.exited).exitCode).toBe(0);
  });

  it('the PTY server ends the session’s records and socket when claude exits (then, idle, exits), and talk says so', async () => {
    const t = open(startTalk(home, [short()], { cols: 100, rows: 30 }));
    await t.waitForText('Reply to: seen by the viewer', { timeoutMs: 10_000 });
    const serverPid = ptyRows(home, session.id)[0]!.pid;
    process.kill(claudePid, 'SIGTERM');
    const exit = await t.exited;
    expect(t.text()).toMatch(/claude exited \((code \d+|signal \d+)\)/);
    expect(exit.exitCode).not.toBe(0);
    await waitForDb('the PTY row ended', () => ptyRows(home, session.id)[0]!.exited_at !== null);
    await waitForDb('the PTY server gone after its last session', () => !alive(serverPid));
    expect(socketExists(home, session.id)).toBe(false);
    expect(sessionStatus(home, session.id)).toBe('done');

    // Talking again starts the session (and a PTY server) again, resuming the same conversation.
    const next = open(startTalk(home, [short()]));
    await next.waitForText('Reply to: seen by the viewer', { timeoutMs: 45_000 });
    expect(claudePidOf(home, session.id)).not.toBe(claudePid);
    expect(ptyRows(home, session.id)).toHaveLength(2);
    await submit(next, 'after the restart');
    await next.waitForText('Reply to: after the restart', { timeoutMs: 45_000 });
    const history = JSON.stringify(fx.mock.mainRequests().at(-1)!.body.messages);
    expect(history).toContain('talk-marker-31');
    expect(history).toContain('seen by the viewer');

    // The dashboard's way in: a read-only viewer with its own screen, updated as output arrives.
    const hash = projectHash(home.projectDir);
    expect(listPtySessions(openDbRO(), hash, home.klaudeHome, home.env).map((p) => p.sessionId)).toEqual([session.id]);
    let onUpdate: () => void = () => undefined;
    const viewer = await openPtyViewer(home.klaudeHome, hash, session.id, { onUpdate: () => onUpdate() }, home.env);
    try {
      expect(viewer.pid).toBe(claudePidOf(home, session.id));
      // claude 2.1.332 draws in the alternate screen (docs/claude-versions.md).
      const bufferType = claudeAtLeast('2.1.332') ? 'alternate' : 'normal';
      expect(viewer.snapshot()).toMatchObject({ cols: 100, rows: 30, bufferType });
      expect(viewer.snapshot().lines.join('\n')).toContain('Reply to: after the restart');
      expect(viewer.snapshot().ansiLines.join('\n')).toMatch(/\x1b\[0;38;5;\d+m/); // colours kept
      const seen = new Promise<void>((resolve) => {
        onUpdate = () => {
          if (viewer.snapshot().lines.join('\n').includes('Reply to: for the viewer api')) resolve();
        };
      });
      await submit(next, 'for the viewer api');
      await seen;
    } finally {
      viewer.close();
    }
    next.press('ctrl-]');
    await next.exited;
  });

  it('refuses a session a klaude foreground drives, and one that is not running with --view', async () => {
    const other = (() => {
      const db = openDb(home.klaudeHome);
      try {
        const s = createSession(db, {
          projectId: projectHash(home.projectDir),
          type: 'tui',
          runtime: 'claude',
          status: 'idle',
        });
        // This test process stands in for the foreground claude of a supervisor.
        recordProcess(db, { klaudeSessionId: s.id, pid: process.pid, kind: 'claude' });
        return s.id;
      } finally {
        db.close();
      }
    })();
    const t = open(startTalk(home, [other.slice(-6)]));
    expect((await t.exited).exitCode).toBe(1);
    expect(t.text()).toMatch(/is open in a klaude foreground \(claude pid \d+\) \[E_SESSION_BUSY\]/);
    expect(ptyRows(home, other)).toHaveLength(0);

    const idle = (() => {
      const db = openDb(home.klaudeHome);
      try {
        return createSession(db, {
          projectId: projectHash(home.projectDir),
          type: 'general',
          runtime: 'claude',
          status: 'done',
        }).id;
      } finally {
        db.close();
      }
    })();
    const v = open(startTalk(home, [idle.slice(-6), '--view']));
    await v.exited;
    expect(v.text()).toMatch(/is not running in a PTY session \[E_AGENT_NOT_RUNNING\]/);
  });
});

function openDbRO() {
  const db = openDb(home.klaudeHome);
  dbs.push(db);
  return db;
}
const dbs: ReturnType<typeof openDb>[] = [];
afterAll(() => {
  for (const db of dbs) db.close();
});

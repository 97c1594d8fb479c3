// `klaude ui` with PTY sessions, end to end (the built CLI under node-pty, the real claude against
// the stand-in): the preview pane shows a background PTY session's new reply without attaching;
// `t` attaches the dashboard's terminal to it and Ctrl-] comes back to the dashboard as it was;
// quitting says PTY sessions keep running and x stops them. A session waiting on a permission
// prompt shows as waiting (from the Notification hook, not from its screen) and rings the bell.
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import type { PtySession } from '../support/pty-driver.js';
import type { TempHome } from '../support/temp-home.js';
import { DASHBOARD } from '../ui/helpers/ui-e2e.js';
import { READY, runResponder, startKlaude, submit, waitForDb } from './supervisor-helpers.js';
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

const fx = useAgentHomes({ responder: runResponder });
const hosts: { home: TempHome; sessionId: string }[] = [];
const terms: PtySession[] = [];
const open = (t: PtySession): PtySession => {
  terms.push(t);
  return t;
};

/** A home of its own for each test; Ink must run interactive in the PTY (no CI). */
const uiPtyHome = (allowBash: boolean): AgentHome => fx.home({ supervisor: true, allowBash, env: { CI: undefined } });

/** The screen with pane borders and line breaks folded to single spaces (wrapped dialog text). */
const flat = (t: PtySession): string => t.text().replace(/[│╭╮╰╯─\s]+/g, ' ');
/** BEL bytes that are not an OSC terminator (the title is written with OSC 0 … BEL). */
const bells = (raw: string): number => raw.replace(/\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g, '').split('\x07').length - 1;

afterEach(async () => {
  for (const t of terms.splice(0)) await t.dispose();
  for (const h of hosts.splice(0)) await stopHosts(h.home, h.sessionId).catch(() => undefined);
});

describe('klaude ui with PTY sessions', () => {
  it('previews a background PTY session live, talks to it with t, and q offers to stop it', async () => {
    const home = uiPtyHome(true);
    const session = await sessionWithConversation(home, 'ui-pty-marker');
    hosts.push({ home, sessionId: session.id });
    const s = shortId(session.id);

    const ui = open(startKlaude(home, ['ui'], { cols: 120, rows: 34 }));
    await ui.waitForText(DASHBOARD, { timeoutMs: 20_000 });
    await ui.waitForText(`log · general ${s}`);

    // A second terminal talks to the session in a PTY, then detaches while a slow reply streams.
    const talk = open(startTalk(home, [session.id.slice(-6)]));
    await talk.waitForText(READY, { timeoutMs: 45_000 });
    await talk.waitForText('Reply to: ui-pty-marker');
    await ui.waitFor((t) => new RegExp(`general pty .*${s}`).test(t), 'the pty tag in the tree', { timeoutMs: 20_000 });
    await ui.waitForText(`screen · general ${s} · pty`, { timeoutMs: 20_000 });
    await ui.waitForText('Reply to: ui-pty-marker');
    fx.mock.enqueue({ text: 'late-line-one\nlate-reply-marker arrived\n', chunks: 2, delayMs: 1500 });
    await submit(talk, 'a slow question');
    talk.press('ctrl-]');
    expect((await talk.exited).exitCode).toBe(0);
    // Nobody is attached: the dashboard's preview shows the reply as claude draws it, and claude
    // draws for the pane (66×29 inside at 120×34), not for the talk terminal's 100 columns.
    await ui.waitForText('late-reply-marker arrived', { timeoutMs: 45_000 });
    await ui.waitForText('live · 66×29', { timeoutMs: 20_000 });
    expect(ui.bufferType()).toBe('alternate');
    const serverPid = ptyRows(home, session.id).find((r) => r.exited_at === null)!.pid;
    const claudePid = claudePidOf(home, session.id);

    // t: the dashboard hands its terminal to the PTY session (its screen at once) …
    ui.write('t');
    await ui.waitFor(() => ui.bufferType() === 'normal', 'the session on the normal screen', { timeoutMs: 20_000 });
    await ui.waitForText('late-reply-marker arrived');
    await submit(ui, 'typed from the dashboard');
    await ui.waitForText('Reply to: typed from the dashboard', { timeoutMs: 45_000 });
    // … and Ctrl-] brings the dashboard back where it was, the session still running.
    ui.press('ctrl-]');
    await ui.waitForText(`detached from ${s}: it keeps running in its PTY`, { timeoutMs: 20_000 });
    expect(ui.bufferType()).toBe('alternate');
    await ui.waitForText(`screen · general ${s} · pty`);
    await ui.waitForText('Reply to: typed from the dashboard');
    expect(alive(claudePid)).toBe(true);

    // q: PTY sessions keep running (own processes), unless x stops them.
    ui.write('q');
    await ui.waitFor((t) => /x stop PTY sessions/.test(t), 'the quit question', { timeoutMs: 20_000 });
    expect(flat(ui)).toContain('1 PTY session is running. They keep running too: they are their own processes');
    ui.write('x');
    expect((await ui.exited).exitCode).toBe(0);
    expect(ui.bufferType()).toBe('normal');
    expect(ui.text()).toContain(`klaude: stopped 1 PTY session (${s})`);
    await waitForDb('its claude stopped', () => !alive(claudePid), 15_000);
    await waitForDb('its row ended', () => ptyRows(home, session.id).every((r) => r.exited_at !== null), 15_000);
    // Its last session gone, the PTY server exits by itself.
    await waitForDb('the PTY server gone', () => !alive(serverPid), 20_000);
  });

  it('a session waiting on a permission prompt shows as waiting (Notification hook) and rings the bell', async () => {
    const home = uiPtyHome(false); // no allow rule: Bash asks first
    const session = await sessionWithConversation(home, 'ui-wait-marker');
    hosts.push({ home, sessionId: session.id });
    const s = shortId(session.id);

    const ui = open(startKlaude(home, ['ui'], { cols: 120, rows: 34 }));
    await ui.waitForText(DASHBOARD, { timeoutMs: 20_000 });
    await ui.waitForText(`log · general ${s}`);
    await ui.waitFor(() => ui.rawOutput().includes('\x1b]0;klaude\x07'), 'the title', { timeoutMs: 10_000 });
    expect(bells(ui.rawOutput())).toBe(0);

    const talk = open(startTalk(home, [session.id.slice(-6)]));
    await talk.waitForText(READY, { timeoutMs: 45_000 });
    await submit(talk, 'run: touch x && python3 -c 1');
    await talk.waitForText(/Do you want to proceed\?/, { timeoutMs: 45_000 });
    talk.press('ctrl-]');
    await talk.exited;

    await waitForDb(
      'the session waiting (Notification hook)',
      () => sessionStatus(home, session.id) === 'waiting',
      30_000,
    );
    await ui.waitFor((t) => new RegExp(`◆ general needs you pty .*${s}`).test(t), 'the needs-you mark', {
      timeoutMs: 10_000,
    });
    await ui.waitFor((t) => /◆ 1 waiting/.test(t), 'the header count');
    expect(bells(ui.rawOutput())).toBe(1);
    expect(ui.rawOutput()).toContain('\x1b]0;klaude (1 waiting)\x07');

    // Leaving restores the person's title (the dashboard pushed it on the terminal's title stack).
    ui.write('q');
    await ui.waitFor((t) => /x stop PTY sessions/.test(t), 'the quit question');
    ui.write('y');
    expect((await ui.exited).exitCode).toBe(0);
    expect(ui.rawOutput()).toContain('\x1b]0;\x07\x1b[23;0t');
    expect(ui.text()).toContain(`1 PTY session keeps running (${s})`);
    expect(bells(ui.rawOutput())).toBe(1);
  });
});

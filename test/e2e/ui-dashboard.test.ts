// `klaude ui` end to end: the built CLI under a PTY, screen read through @xterm/headless. The
// dashboard takes the alternate screen, shows the project's tree and the selected session's log,
// shows appended log lines live, re-lays out on resize (one pane when narrow, never taller than
// the terminal), and `q` restores the terminal.
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import type { PtySession } from '../support/pty-driver.js';
import { appendEvents } from '../ui/helpers/demo-data.js';
import { DASHBOARD, frameRows, startUi, uiDemoHome, type UiDemoHome } from '../ui/helpers/ui-e2e.js';
import { useAgentHomes } from './agent-home.js';
import { runResponder } from './supervisor-helpers.js';

const fx = useAgentHomes({ responder: runResponder });
let demo: UiDemoHome;
let term: PtySession | undefined;

beforeAll(() => {
  demo = uiDemoHome(fx);
});

describe('klaude ui', () => {
  it('renders tree and log, follows a log live, re-lays out on resize, and q restores the terminal', async () => {
    const s = demo.sessions;
    term = demo.home.own(startUi(demo, { cols: 120, rows: 34 }));
    await term.waitForText(DASHBOARD, { timeoutMs: 20_000 });
    await term.waitForText('? help');
    expect(term.bufferType()).toBe('alternate');
    expect(term.cursorVisible()).toBe(false);
    const screen = term.text();
    expect(screen).toMatch(/● 1 running\s+◆ 1 waiting\s+○ 1 idle\s+✓ 2 done\s+✗ 1 failed\s+⊘ 1 interrupted/);
    for (const x of Object.values(s)) expect(screen).toContain(shortId(x.id));
    expect(screen).toMatch(/⏎ open\s+n new\s+s start/);
    // Semantic colours (see the NO_COLOR test): an SGR with a foreground 30–37 among its parameters.
    expect(term.rawOutput()).toMatch(/\x1b\[(?:\d+;)*3[0-7](?:;\d+)*m/);
    // The frame leaves the last row empty and fits the width.
    expect(term.lines()[33]).toBe('');
    expect(frameRows(term).every((l) => [...l].length <= 120)).toBe(true);

    term.press('down');
    term.press('down');
    term.press('down');
    await term.waitForText(`log · reviewer ${shortId(s.rev!.id)}`);
    await term.waitForText('→ Read: src/auth/middleware.ts');
    await term.waitForText('[UPDATE] found a read-before-write race in refresh.ts:18');

    // Lines appended to the agent's log appear while the person watches.
    appendEvents(s.rev!.logPath, [{ type: 'tool_call', id: 'x', name: 'Bash', summary: 'npm run live-marker-1' }]);
    await term.waitForText('→ Bash: npm run live-marker-1', { timeoutMs: 5000 });
    appendEvents(s.rev!.logPath, [{ type: 'text', text: 'live-marker-2 arrived' }]);
    await term.waitForText('live-marker-2 arrived', { timeoutMs: 5000 });

    // Narrow: one pane (the focused tree), nothing wider or taller than the terminal.
    term.resize(70, 20);
    await term.waitFor((t) => /╭─ sessions 7/.test(t) && !/╭─ log/.test(t), 'the single-pane tree at 70×20');
    expect(term.lines()).toHaveLength(20);
    expect(term.lines()[19]).toBe('');
    expect(term.lines().every((l) => [...l].length <= 70)).toBe(true);
    term.press('tab');
    await term.waitFor((t) => /╭─ log · reviewer/.test(t) && !/╭─ sessions/.test(t), 'the single-pane log');
    expect(term.text()).toContain('live-marker-2 arrived');
    term.press('tab');
    // Back to wide: both panes again, redrawn clean (no remnants of the narrow frame).
    term.resize(120, 34);
    await term.waitFor((t) => DASHBOARD.test(t) && /╭─ log · reviewer/.test(t), 'both panes at 120×34');
    expect(term.lines().filter((l) => l.startsWith('╭─')).length).toBe(1);
    expect(term.lines()[33]).toBe('');

    // q while agents run asks first; y quits and gives the terminal back.
    term.press('down'); // clears nothing, just a key before quitting
    term.write('q');
    await term.waitForText('agents are still working');
    term.write('y');
    const exit = await term.exited;
    expect(exit.exitCode).toBe(0);
    expect(term.bufferType()).toBe('normal');
    expect(term.cursorVisible()).toBe(true);

    const db = new Database(join(demo.home.klaudeHome, 'sessions.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT mode, status, exit_code FROM instances').all()).toEqual([
        { mode: 'ui', status: 'exited', exit_code: 0 },
      ]);
    } finally {
      db.close();
    }
  });

  it('starts an agent from the dashboard (type, prompt) and shows its output as it runs', async () => {
    term = demo.home.own(startUi(demo, { cols: 120, rows: 34 }));
    await term.waitForText(DASHBOARD, { timeoutMs: 20_000 });
    await term.waitForText('? help');
    term.write('s');
    await term.waitForText('general — plain Claude Code agent');
    term.press('enter');
    await term.waitForText('start an agent · 2/2 prompt');
    term.type('run: echo ui-agent-ran');
    await term.waitForText('run: echo ui-agent-ran▏');
    term.press('enter');
    // The new agent is selected and its log streams in: the tool call, its result, the reply.
    await term.waitForText(/started general \w{8}/, { timeoutMs: 30_000 });
    await term.waitForText('log · general', { timeoutMs: 10_000 });
    await term.waitForText('→ Bash: echo ui-agent-ran', { timeoutMs: 45_000 });
    await term.waitForText('Tool output: ui-agent-ran', { timeoutMs: 45_000 });
    await term.waitForText(/■ done/, { timeoutMs: 45_000 });
    term.write('q');
    await term.waitForText('agents are still working');
    term.write('y');
    expect((await term.exited).exitCode).toBe(0);
  });

  it('restores the terminal on SIGTERM and under NO_COLOR draws without colours', async () => {
    term = demo.home.own(startUi(demo, { cols: 100, rows: 30 }, { NO_COLOR: '1' }));
    await term.waitForText(DASHBOARD, { timeoutMs: 20_000 });
    // No colour in any SGR that was drawn (foreground 30–38/90–97, background 40–48/100–107); attributes only.
    expect(term.rawOutput()).not.toMatch(/\x1b\[(?:\d+;)*(?:3[0-8]|4[0-8]|9[0-7]|10[0-7])(?:;\d+)*m/);
    expect(term.rawOutput()).toMatch(/\x1b\[(?:\d+;)*7(?:;\d+)*m/); // the selection, in inverse video
    await term.waitForText('↓ down');

    // Ctrl-Z stops it like any terminal program (normal screen, cursor back); SIGCONT (`fg`) resumes.
    term.press('down'); // (and keys are read: the input hook is armed)
    await term.waitForText('log · test-runner');
    term.press('ctrl-z');
    const t = term;
    await t.waitFor(() => t.bufferType() === 'normal' && t.cursorVisible(), 'the normal screen after Ctrl-Z');
    // `fg` continues a stopped job: wait until it has stopped (state T), as a shell would.
    const state = (): string => readFileSync(`/proc/${t.pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0]!;
    for (let i = 0; i < 500 && state() !== 'T'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(state()).toBe('T');
    t.kill('SIGCONT');
    await t.waitFor(() => t.bufferType() === 'alternate', 'the dashboard back after SIGCONT');
    await term.waitForText('↓ down');
    term.press('down');
    await term.waitForText('log · docs-writer');

    term.kill('SIGTERM');
    const exit = await term.exited;
    expect(exit.exitCode).toBe(143);
    expect(term.bufferType()).toBe('normal');
    expect(term.cursorVisible()).toBe(true);
  });
});

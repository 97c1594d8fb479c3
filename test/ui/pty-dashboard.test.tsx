// The dashboard side of PTY sessions under ink-testing-library: the "pty" and "needs you" marks in
// the tree, the live screen of the selected PTY session in the right pane (cropped to its bottom,
// the viewer closed when the selection moves away), the talk key and its reasons, quitting with
// PTY sessions running (they keep running; x stops them).
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { recordProcess } from '../../src/db/repos/processes.js';
import { updateSession } from '../../src/db/repos/sessions.js';
import type { PtySnapshot, PtyViewer, PtyViewerHandlers } from '../../src/pty/viewer.js';
import { PtyPreviewFeed } from '../../src/feeds/pty-preview.js';
import { renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

const plain = (s: string): string => s.replace(/\x1b\[[0-9;]*m/g, '');
const row = (frame: string, id: string): string =>
  plain(frame)
    .split('\n')
    .find((l) => l.startsWith('│') && l.includes(shortId(id))) ?? '';

/**
 * A viewer whose screen the test writes; `update()` is the host's output arriving. `fit` is kept;
 * the host makes it the screen's size when `fits` (nobody attached), else not (someone is).
 */
class FakeViewer implements PtyViewer {
  readonly pid = 4321;
  closed = false;
  screen: string[] = [];
  cursor = { x: 2, y: 0 };
  cols = 100;
  rows = 30;
  readonly fits: { cols: number; rows: number }[] = [];
  constructor(
    readonly h: PtyViewerHandlers,
    private readonly honoursFit = false,
  ) {}
  fit(size: { cols: number; rows: number }): void {
    this.fits.push(size);
    if (!this.honoursFit) return;
    this.cols = size.cols;
    this.rows = size.rows;
    this.h.onUpdate?.();
  }
  snapshot(): PtySnapshot {
    const rows = this.rows;
    const lines = Array.from({ length: rows }, (_, i) => this.screen[i] ?? '');
    return {
      cols: this.cols,
      rows,
      lines,
      ansiLines: lines.map((l) => (l ? `\x1b[0;38;5;174m${l}\x1b[0m` : '')),
      cursor: this.cursor,
      bufferType: 'normal',
    };
  }
  close(): void {
    this.closed = true;
    this.h.onClose?.();
  }
  update(lines: string[], cursorY: number): void {
    this.screen = lines;
    this.cursor = { x: 2, y: cursorY };
    this.h.onUpdate?.();
  }
}

function fakePreview(honoursFit = false) {
  const opened: { sessionId: string; viewer: FakeViewer }[] = [];
  const feed = new PtyPreviewFeed({
    frameMs: 0,
    open: async (sessionId, h) => {
      const viewer = new FakeViewer(h, honoursFit);
      viewer.screen = [
        'Welcome to Claude Code',
        '',
        '> first prompt',
        'Reply to: first prompt',
        '',
        '─'.repeat(100),
        '❯ ',
        '─'.repeat(100),
        '  ? for shortcuts',
      ];
      viewer.cursor = { x: 2, y: 6 };
      opened.push({ sessionId, viewer });
      return viewer;
    },
  });
  return { feed, opened };
}

describe('PtyPreviewFeed', () => {
  it('tries again while the host is not listening yet (its row comes first), then shows its screen', async () => {
    let tries = 0;
    let viewer: FakeViewer | undefined;
    const feed = new PtyPreviewFeed({
      frameMs: 0,
      open: async (_id, h) => {
        if (++tries < 3) throw Object.assign(new Error('connect ENOENT'), { code: 'E_IO' });
        viewer = new FakeViewer(h);
        viewer.screen = ['hello from the host'];
        return viewer;
      },
    });
    feed.select('01JSESSION0000000000000000', 99);
    expect(feed.getSnapshot().state).toBe('connecting');
    for (let i = 0; i < 100 && feed.getSnapshot().state !== 'live'; i++) await new Promise((r) => setTimeout(r, 20));
    expect(tries).toBe(3);
    expect(feed.getSnapshot().screen?.lines[0]).toBe('hello from the host');
    // Output that changes nothing visible is not a new snapshot.
    const v = feed.getSnapshot().version;
    viewer!.update(['hello from the host'], 0);
    await new Promise((r) => setImmediate(r));
    expect(feed.getSnapshot().version).toBe(v);
    feed.select(null, null);
    expect(viewer!.closed).toBe(false); // kept a while for a quick way back
    feed.close();
    expect(viewer!.closed).toBe(true);
  });
});

describe('PtyPreviewFeed keeps recent viewers', () => {
  it('switching back reuses the open viewer; at most two are kept; closing the feed closes them all', async () => {
    const p = fakePreview();
    const live = async (id: string): Promise<void> => {
      p.feed.select(id, 7);
      for (let i = 0; i < 100 && !(p.feed.getSnapshot().sessionId === id && p.feed.getSnapshot().state === 'live'); i++)
        await new Promise((r) => setTimeout(r, 5));
      expect(p.feed.getSnapshot()).toMatchObject({ sessionId: id, state: 'live' });
    };
    await live('A');
    await live('B');
    await live('A'); // back to A: no new connection
    expect(p.opened.map((o) => o.sessionId)).toEqual(['A', 'B']);
    await live('C');
    await live('D'); // kept: B (oldest) is closed once A and C are kept
    expect(p.opened.map((o) => [o.sessionId, o.viewer.closed])).toEqual([
      ['A', false],
      ['B', true],
      ['C', false],
      ['D', false],
    ]);
    p.feed.close();
    expect(p.opened.every((o) => o.viewer.closed)).toBe(true);
  });
});

describe('dashboard with PTY sessions', () => {
  it('marks PTY sessions and sessions that need the person in the tree and the header', async () => {
    const p = fakePreview();
    d = await renderDashboard({ columns: 180, preview: p.feed });
    const s = d.sessions;
    expect(row(d.frame(), s.fix!.id)).toMatch(/◆ coder needs you/);
    expect(row(d.frame(), s.root1!.id)).not.toContain(' pty');
    recordProcess(d.db, { klaudeSessionId: s.root1!.id, pid: process.pid, kind: 'pty' });
    d.feed.refresh();
    await d.waitFor((f) => /○ claude pty/.test(row(f, s.root1!.id)), 'the pty tag');
    expect(row(d.frame(), s.fix!.id)).not.toContain(' pty');
    // A session entering `waiting` gets the mark as soon as the DB says so.
    updateSession(d.db, s.rev!.id, { status: 'waiting' });
    d.feed.refresh();
    await d.waitFor((f) => /◆ reviewer needs you/.test(row(f, s.rev!.id)), 'the needs-you mark');
    expect(plain(d.frame())).toMatch(/◆ 2 waiting/);
    p.feed.close();
  });

  it('shows the selected PTY session’s screen live, cropped to the pane’s bottom rows, and stops watching when the selection moves', async () => {
    const p = fakePreview();
    d = await renderDashboard({ columns: 120, rows: 12, preview: p.feed });
    const s = d.sessions;
    recordProcess(d.db, { klaudeSessionId: s.root1!.id, pid: process.pid, kind: 'pty' });
    d.feed.refresh();
    await d.waitForText(`screen · claude ${shortId(s.root1!.id)} · pty`);
    expect(p.opened.map((o) => o.sessionId)).toEqual([s.root1!.id]);
    const v = p.opened[0]!.viewer;
    let f = plain(d.frame());
    // Asked to fit the pane (66×7), but someone attached keeps it 100 wide: the pane says it shows the left part.
    expect(v.fits).toEqual([{ cols: 66, rows: 7 }]);
    expect(f).toContain('live · left 66 of 100 columns');
    // 10 rows of pane: the screen's bottom (prompt and status line) is in, its first line is not.
    expect(f).toContain('? for shortcuts');
    expect(f).toContain('Reply to: first prompt');
    expect(f).not.toContain('Welcome to Claude Code');
    // Cut to the pane's width (100 columns of rule into a narrower pane), never wrapped.
    expect(f.split('\n').every((l) => [...l].length <= 120)).toBe(true);
    expect(d.frame()).toContain('\x1b[38;5;174m'); // the session's colours kept

    v.update(
      [
        '> first prompt',
        'Reply to: first prompt',
        '> second',
        'Reply to: a new reply arrived',
        '',
        '─'.repeat(100),
        '❯ ',
        '─'.repeat(100),
        '  ? for shortcuts',
      ],
      6,
    );
    await d.waitForText('Reply to: a new reply arrived');

    // v shows the log instead (the viewer is kept open a while for a quick way back), v again the
    // screen: at once, from the same viewer.
    await d.press('v');
    await d.waitForText(`log · claude ${shortId(s.root1!.id)}`);
    expect(v.closed).toBe(false);
    await d.press('v');
    await d.waitForText(`screen · claude ${shortId(s.root1!.id)} · pty`);
    expect(plain(d.frame())).toContain('Reply to: a new reply arrived');
    expect(p.opened).toHaveLength(1);

    // Moving away stops showing it; the next session (not in a PTY) shows its log.
    await d.press('down');
    await d.waitForText('log · test-runner');
    expect(p.feed.getSnapshot()).toMatchObject({ sessionId: null, state: 'off' });
    // A viewer whose session ended while kept is closed.
    v.h.onExit?.({ exitCode: 0, signal: null });
    expect(v.closed).toBe(true);
    await d.press('v');
    expect(plain(d.frame())).toMatch(/screen: test-runner \w+ is not running in a PTY session: t starts one/);
    p.feed.close();
  });

  it('asks the PTY for the pane’s size, and again when the terminal is resized; a fitted screen is not cut', async () => {
    const p = fakePreview(true);
    d = await renderDashboard({ columns: 160, rows: 20, preview: p.feed });
    const s = d.sessions;
    recordProcess(d.db, { klaudeSessionId: s.root1!.id, pid: process.pid, kind: 'pty' });
    d.feed.refresh();
    await d.waitForText(`screen · claude ${shortId(s.root1!.id)} · pty`);
    const v = p.opened[0]!.viewer;
    // 160 columns: the tree takes 77, the right pane's inside is 79 wide and 15 rows tall.
    await d.waitForText('live · 79×15');
    expect(v.fits).toEqual([{ cols: 79, rows: 15 }]);
    v.update(['Reply to: a line that fits the pane', '─'.repeat(79), '❯ ', '─'.repeat(79)], 2);
    await d.waitForText('Reply to: a line that fits the pane');
    const rule = plain(d.frame())
      .split('\n')
      .find((l) => l.includes('─'.repeat(79)))!;
    expect(rule.slice(rule.indexOf('││') + 2).match(/─/g)).toHaveLength(79); // whole, not cut
    d.size.set({ columns: 100, rows: 20 });
    await d.waitForText('live · 54×15');
    expect(v.fits.at(-1)).toEqual({ cols: 54, rows: 15 });
    p.feed.close();
  });

  it('NO_COLOR: the screen in plain text', async () => {
    const p = fakePreview();
    const { themes } = await import('../../src/ui/theme.js');
    d = await renderDashboard({ columns: 120, rows: 20, preview: p.feed, theme: themes.noColor });
    recordProcess(d.db, { klaudeSessionId: d.sessions.root1!.id, pid: process.pid, kind: 'pty' });
    d.feed.refresh();
    await d.waitForText('Reply to: first prompt');
    expect(d.frame()).not.toContain('38;5;174');
    p.feed.close();
  });

  it('t talks through the dashboard’s action, and says why it cannot', async () => {
    d = await renderDashboard({
      columns: 140,
      actions: { talk: async () => ({ ok: true, message: 'detached from root: it keeps running in its PTY' }) },
    });
    const s = d.sessions;
    await d.press('t');
    await d.waitForText('detached from root: it keeps running in its PTY');
    expect(d.calls.filter((c) => c.name === 'talk')).toEqual([{ name: 'talk', args: [s.root1!.id] }]);
    // A session a klaude foreground has open: the key explains, nothing is called.
    recordProcess(d.db, { klaudeSessionId: s.root1!.id, pid: process.pid, kind: 'claude' });
    d.feed.refresh();
    await new Promise((r) => setTimeout(r, 50)); // the frame with the new processes is rendered
    await d.press('t');
    await d.waitFor(
      (f) => /talk: claude \w+ is open in a klaude foreground \(claude pid \d+\)/.test(plain(f)),
      'the reason',
    );
    expect(d.calls.filter((c) => c.name === 'talk')).toHaveLength(1);
    // The help lists it (generated from the keymap).
    await d.press('?');
    await d.waitForText('talk to the session in a PTY that keeps running after you detach');
  });

  it('q with PTY sessions running says they keep running, and x stops them as an explicit choice', async () => {
    d = await renderDashboard({ demo: false, columns: 120 });
    const { createSession } = await import('../../src/db/repos/sessions.js');
    const { PROJECT } = await import('./helpers/render-dashboard.js');
    const a = createSession(d.db, { projectId: PROJECT, type: 'tui', runtime: 'claude', status: 'idle' });
    recordProcess(d.db, { klaudeSessionId: a.id, pid: process.pid, kind: 'pty' });
    d.feed.refresh();
    await d.waitForText('sessions 1');
    await d.press('q');
    await d.waitFor(
      (f) => /1 PTY session is running\. They keep running too/.test(plain(f).replace(/\s*│\s*/g, ' ')),
      'the quit question',
    );
    expect(plain(d.frame())).toMatch(/x stop PTY sessions/); // the footer, from the keymap
    expect(d.calls.filter((c) => c.name === 'quit')).toEqual([]);
    await d.press('n');
    await d.press('q', 'y');
    expect(d.calls.filter((c) => c.name === 'quit')).toEqual([{ name: 'quit', args: [] }]);
    await d.press('q', 'x');
    expect(d.calls.filter((c) => c.name === 'quit').at(-1)).toEqual({
      name: 'quit',
      args: [{ stopPtySessions: true }],
    });
  });
});

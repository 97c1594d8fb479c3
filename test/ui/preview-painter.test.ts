// The preview's drawing path with real terminals on both ends: a session's screen (an
// @xterm/headless terminal, as in the viewer) watched by the preview feed, painted by the
// PreviewPainter as the compositor's overlay on a stand-in Ink frame, into a second headless
// terminal standing in for the person's. Checked: the pane's inside shows the bottom of the
// session's screen with its colours, the frame around it is left as Ink drew it, the dashboard's
// cursor is where Ink leaves it, an unchanged screen writes nothing, one changed cell is one short
// write (and only that row is read again), the session scrolling is scrolled by the terminal,
// a frame changing beside the pane leaves the pane alone, and frames follow the frame-rate cap
// and stop when the session is quiet.
import { afterEach, describe, expect, it } from 'vitest';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { screenGrid, type PtyViewer, type PtyViewerHandlers } from '../../src/pty/viewer.js';
import { PtyPreviewFeed } from '../../src/feeds/pty-preview.js';
import { GridFeed } from '../../src/ptyd/grid-feed.js';
import { RemoteGrid } from '../../src/pty/remote-grid.js';
import { Compositor } from '../../src/ui/render/compositor.js';
import { PreviewPainter, type PaintRegion } from '../../src/ui/render/preview-painter.js';

const REGION: PaintRegion = {
  sessionId: '01JSESSION0000000000000000',
  x: 50,
  y: 2,
  width: 66,
  height: 28,
  colour: true,
};
const turn = (): Promise<void> => new Promise((r) => setTimeout(r, 5));

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function setup(frameMs = 0, via: 'screen' | 'host' = 'screen') {
  const session = new HeadlessScreen({ cols: 100, rows: 30, scrollback: 0 });
  // As the dashboard sees a session: its host's rows, moves and all (ptyd/grid-feed.ts → RemoteGrid).
  const remote = new RemoteGrid(100, 30);
  const host = new GridFeed(session, 0, (m) => remote.apply(m), true);
  const term = new HeadlessScreen({ cols: 120, rows: 34, scrollback: 0 });
  let handlers: PtyViewerHandlers = {};
  let written = '';
  let writes = 0;
  const feed = new PtyPreviewFeed({
    frameMs,
    open: async (_id, h) => {
      handlers = h;
      const v: PtyViewer = {
        pid: 1,
        snapshot: () => {
          throw new Error('the painter path reads rows, not snapshots');
        },
        grid: () => (via === 'host' ? remote : screenGrid(session)),
        close: () => undefined,
      };
      return v;
    },
  });
  const screen = new Compositor(
    (s) => {
      written += s;
      writes++;
      term.write(s);
    },
    () => 120,
  );
  const painter = new PreviewPainter(screen, (id) => (feed.getSnapshot().sessionId === id ? feed.grid() : null));
  screen.addOverlay(painter);
  feed.setPaint(() => painter.paint());
  // Ink's frame: 32 rows, the tree's text left of the pane, the pane's border, its inside blank.
  const inkFrame = (clock = 5): string[] =>
    Array.from({ length: 32 }, (_, y) =>
      y >= REGION.y && y < REGION.y + REGION.height
        ? `│ agent-${y} ${clock}s`.padEnd(REGION.x - 2) + '│ ' + ' '.repeat(REGION.width) + ' │'
        : `row ${y}`,
    );
  screen.frame(inkFrame());
  cleanups.push(() => {
    host.close();
    feed.close();
    session.dispose();
    term.dispose();
  });
  /** The session writes; the viewer reports it once parsed; the feed paints within its frame. */
  const output = async (data: string): Promise<void> => {
    session.write(data);
    await session.parsed();
    host.flush();
    handlers.onUpdate?.();
    await turn();
    await term.parsed();
  };
  const take = (): { text: string; writes: number } => {
    const r = { text: written, writes };
    written = '';
    writes = 0;
    return r;
  };
  const paneRow = (i: number): string =>
    term
      .lines()
      [REGION.y + i]!.slice(REGION.x, REGION.x + REGION.width)
      .trimEnd();
  const update = (): void => handlers.onUpdate?.();
  const treeRow = (i: number): string => term.lines()[REGION.y + i]!.slice(0, REGION.x).trimEnd();
  return { session, term, feed, screen, painter, inkFrame, output, take, paneRow, treeRow, update };
}

describe('PreviewPainter', () => {
  it('paints the bottom of the screen with its colours, then only what changed', async () => {
    const t = await setup();
    // A claude-like screen: a welcome line on top, a reply, the prompt box and status at the bottom.
    let screen = '\x1b[38;5;174mWelcome to Claude Code\x1b[0m\r\n';
    for (let i = 0; i < 25; i++) screen += `line ${i} of the reply\r\n`;
    screen += `${'─'.repeat(100)}\r\n\x1b[1m❯\x1b[0m \r\n${'─'.repeat(100)}\r\n  \x1b[38;5;174m? for shortcuts\x1b[0m`;
    t.session.write(screen);
    await t.session.parsed();
    t.feed.select('01JSESSION0000000000000000', 99);
    for (let i = 0; i < 100 && t.feed.getSnapshot().state !== 'live'; i++) await turn();
    expect(t.feed.getSnapshot().screen).toMatchObject({ cols: 100, rows: 30, lines: [] }); // no rows copied for React

    // Ink's frame is on the terminal (drawn whole: the screen was unknown).
    await t.term.parsed();
    expect(t.take().writes).toBe(1);
    expect(t.treeRow(3)).toBe(`│ agent-${REGION.y + 3} 5s`.padEnd(REGION.x - 2) + '│');
    t.painter.place(REGION);
    await turn();
    await t.term.parsed();
    const first = t.take();
    expect(first.writes).toBe(1);
    // 28 rows of pane for 30 of screen: the bottom 28 (welcome and line 0 are above it).
    expect(t.paneRow(0)).toBe('line 1 of the reply');
    expect(t.paneRow(27)).toBe('  ? for shortcuts');
    expect(t.paneRow(24)).toBe('─'.repeat(66)); // cut to the pane, not wrapped
    const buf = t.term.term.buffer.active;
    expect(
      buf
        .getLine(REGION.y + 27)!
        .getCell(REGION.x + 2)!
        .getFgColor(),
    ).toBe(174);
    expect(
      buf
        .getLine(REGION.y + 25)!
        .getCell(REGION.x)!
        .isBold(),
    ).toBeTruthy();
    // The dashboard's cursor is where Ink leaves it: the start of the row below its 32-row frame.
    expect([buf.cursorX, buf.cursorY]).toEqual([0, 32]);
    // The frame around the pane is as Ink drew it.
    expect(t.treeRow(3)).toBe(`│ agent-${REGION.y + 3} 5s`.padEnd(REGION.x - 2) + '│');
    expect(t.term.lines()[REGION.y + 3]!.slice(REGION.x + REGION.width)).toBe(' │');

    // Output that changes nothing on the screen (a title): no write at all.
    await t.output('\x1b]0;claude\x07');
    expect(t.take().writes).toBe(0);

    // One character typed at the prompt: one short write of that cell, one row read again.
    const reads = t.painter.reads;
    await t.output('\x1b[28;3Hx');
    const typed = t.take();
    expect(typed.writes).toBe(1);
    expect(typed.text).toBe(`\x1b[?2026h\x1b[${REGION.y + 26};${REGION.x + 3}Hx\x1b[33;1H\x1b[?2026l`);
    expect(t.painter.reads - reads).toBe(1);
    expect(t.paneRow(25)).toBe('❯ x');

    // Ink's frame changes beside the pane (a clock on every tree row): those cells, the pane untouched.
    t.screen.frame(t.inkFrame(6));
    await turn();
    await t.term.parsed();
    const clock = t.take();
    expect(clock.writes).toBe(1);
    expect(clock.text.match(/\x1b\[\d+;\d+H6/g)).toHaveLength(REGION.height);
    expect(clock.text.length).toBeLessThan(REGION.height * 12 + 40);
    expect(t.treeRow(3)).toBe(`│ agent-${REGION.y + 3} 6s`.padEnd(REGION.x - 2) + '│');
    expect(t.paneRow(3)).toBe('line 4 of the reply');

    // Not shown any more: the rows show Ink's frame again (a blank inside), and nothing is
    // painted however the screen changes.
    t.painter.place(null);
    await turn();
    await t.term.parsed();
    expect(t.take().writes).toBe(1);
    for (let i = 0; i < REGION.height; i++) expect(t.paneRow(i)).toBe('');
    expect(t.treeRow(3)).toBe(`│ agent-${REGION.y + 3} 6s`.padEnd(REGION.x - 2) + '│');
    await t.output('more output\r\n');
    expect(t.take().writes).toBe(0);
  });

  it('lets the terminal scroll the pane when the session scrolls, and draws the rest back', async () => {
    const t = await setup();
    // A screen full of distinct lines, a prompt at the bottom that stays where it is.
    const prompt = `${'─'.repeat(100)}\r\n❯ \r\n${'─'.repeat(100)}`;
    let body = '';
    for (let i = 0; i < 27; i++) body += `reply line ${i} ${'·'.repeat(i % 40)}\r\n`;
    t.session.write(`\x1b[1;27r${body}\x1b[r\x1b[28;1H${prompt}`);
    await t.session.parsed();
    t.feed.select('01JSESSION0000000000000000', 99);
    for (let i = 0; i < 100 && t.feed.getSnapshot().state !== 'live'; i++) await turn();
    t.painter.place(REGION);
    await turn();
    await t.term.parsed();
    t.take();
    const before = t.term.lines();
    // Two new lines at the bottom of the session's scrolling part (as claude streams a reply).
    await t.output('\x1b[1;27r\x1b[27;1H\r\nreply line 27\r\nreply line 28\x1b[r\x1b[30;1H');
    const scrolled = t.take();
    expect(scrolled.writes).toBe(1);
    // The terminal moved the rows (a region and two index steps), and little else was written:
    // the two new lines, the tree's rows that moved with them drawn back.
    expect(scrolled.text).toMatch(/\x1b\[\d+;\d+r\x1b\[\d+;1H\x1bD\x1bD\x1b\[r/);
    expect(scrolled.text.length).toBeLessThan(700);
    const after = t.term.lines();
    for (let i = 0; i < REGION.height; i++)
      expect(t.treeRow(i)).toBe(before[REGION.y + i]!.slice(0, REGION.x).trimEnd());
    const lines = t.session.lines();
    expect(lines[26]).toBe('reply line 28');
    for (let i = 0; i < REGION.height; i++) expect(t.paneRow(i)).toBe(lines[i + 2]!.slice(0, REGION.width).trimEnd());
    // Everything else on the screen as it was.
    expect(after.slice(0, REGION.y)).toEqual(before.slice(0, REGION.y));
    expect(after.slice(REGION.y + REGION.height)).toEqual(before.slice(REGION.y + REGION.height));
  });

  it("reads only the new rows of a scroll from the session's host, and draws little more", async () => {
    const t = await setup(0, 'host');
    let body = '';
    for (let i = 0; i < 27; i++) body += `reply line ${i} ${'·'.repeat(i % 40)}\r\n`;
    t.session.write(`\x1b[1;27r${body}\x1b[r\x1b[28;1H${'─'.repeat(100)}\r\n❯ \r\n${'─'.repeat(100)}`);
    await t.output('');
    t.feed.select('01JSESSION0000000000000000', 99);
    for (let i = 0; i < 100 && t.feed.getSnapshot().state !== 'live'; i++) await turn();
    t.painter.place(REGION);
    await turn();
    await t.term.parsed();
    t.take();
    for (let n = 27; n < 32; n++) {
      const reads = t.painter.reads;
      await t.output(`\x1b[1;27r\x1b[27;1H\r\nreply line ${n}\x1b[r\x1b[30;1H`);
      const w = t.take();
      expect(w.writes).toBe(1);
      expect(w.text).toMatch(/\x1bD/); // scrolled by the terminal
      expect(t.painter.reads - reads).toBeLessThanOrEqual(2); // the new line (and the one it pushed up)
      const lines = t.session.lines();
      for (let i = 0; i < REGION.height; i++) expect(t.paneRow(i)).toBe(lines[i + 2]!.slice(0, REGION.width).trimEnd());
    }
  });

  it('paints at most once per frame (ui.maxFps) and not at all once the session is quiet', async () => {
    const t = await setup(100); // 10 fps
    t.session.write('ready\r\n');
    await t.session.parsed();
    t.feed.select('01JSESSION0000000000000000', 99);
    for (let i = 0; i < 100 && t.feed.getSnapshot().state !== 'live'; i++) await turn();
    t.painter.place(REGION);
    t.take();
    // 20 bursts of output 10 ms apart (about 200 ms): one frame per 100 ms, not twenty.
    const t0 = Date.now();
    for (let i = 0; i < 20; i++) {
      t.session.write(`chunk ${i}\r\n`);
      await t.session.parsed();
      t.update();
      await new Promise((r) => setTimeout(r, 10));
    }
    const elapsed = Date.now() - t0;
    await new Promise((r) => setTimeout(r, 150));
    await t.term.parsed();
    const busy = t.take();
    expect(busy.writes).toBeGreaterThanOrEqual(2);
    expect(busy.writes).toBeLessThanOrEqual(Math.ceil(elapsed / 100) + 1);
    expect(busy.writes).toBeLessThan(20);
    expect(t.paneRow(20)).toBe('chunk 19'); // the last frame has everything
    await new Promise((r) => setTimeout(r, 300));
    expect(t.take().writes).toBe(0);
  });
});

// The preview's drawing path with real terminals on both ends: a session's screen (an
// @xterm/headless terminal, as in the viewer) watched by the preview feed, painted by the
// PreviewPainter into a second headless terminal standing in for the person's. Checked: the pane's
// inside shows the bottom of the session's screen with its colours, the dashboard's cursor is
// where it was, an unchanged screen writes nothing, one changed row is one short write (and only
// that row is read again), Ink rewriting its frame gets the inside repainted, and frames follow
// the frame-rate cap and stop when the session is quiet.
import { afterEach, describe, expect, it } from 'vitest';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { screenGrid, type PtyViewer, type PtyViewerHandlers } from '../../src/pty/viewer.js';
import { PtyPreviewFeed } from '../../src/feeds/pty-preview.js';
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

async function setup(frameMs = 0) {
  const session = new HeadlessScreen({ cols: 100, rows: 30, scrollback: 0 });
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
        grid: () => screenGrid(session),
        close: () => undefined,
      };
      return v;
    },
  });
  const painter = new PreviewPainter(
    (s) => {
      written += s;
      writes++;
      term.write(s);
    },
    (id) => (feed.getSnapshot().sessionId === id ? feed.grid() : null),
  );
  feed.setPaint(() => painter.paint());
  cleanups.push(() => {
    feed.close();
    session.dispose();
    term.dispose();
  });
  /** The session writes; the viewer reports it once parsed; the feed paints within its frame. */
  const output = async (data: string): Promise<void> => {
    session.write(data);
    await session.parsed();
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
  return { session, term, feed, painter, output, take, paneRow, update };
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

    // The dashboard's cursor (Ink's bookkeeping) sits at the frame's bottom.
    t.term.write('\x1b[33;1H');
    t.painter.place(REGION);
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
    expect([buf.cursorX, buf.cursorY]).toEqual([0, 32]);
    // Nothing outside the pane's inside was touched.
    expect(t.term.lines()[REGION.y + 3]!.slice(0, REGION.x).trim()).toBe('');

    // Output that changes nothing on the screen (a title): no write at all.
    await t.output('\x1b]0;claude\x07');
    expect(t.take().writes).toBe(0);

    // One character typed at the prompt: one short write of that row, one row read again.
    const frames = (t.painter as unknown as { frames: { reads: number } }).frames;
    const reads = frames.reads;
    await t.output('\x1b[28;3Hx');
    const typed = t.take();
    expect(typed.writes).toBe(1);
    expect(typed.text.length).toBeLessThan(30);
    expect(frames.reads - reads).toBe(1);
    expect(t.paneRow(25)).toBe('❯ x');

    // Ink rewrote its frame (the inside is blank on the terminal): painted again.
    t.term.write(`\x1b[${REGION.y + 1};1H\x1b[2K`);
    t.painter.inkWrote();
    await turn();
    await t.term.parsed();
    expect(t.paneRow(0)).toBe('line 1 of the reply');
    expect(t.take().writes).toBe(1);

    // Ink rewrote one row only (incremental rendering, a clock moved): that row alone is painted again.
    t.term.write(`\x1b[${REGION.y + 4};1H\x1b[2K`);
    t.painter.inkWrote(new Set([REGION.y + 3]));
    await turn();
    await t.term.parsed();
    const one = t.take();
    expect(one.writes).toBe(1);
    expect(one.text.length).toBeLessThan(40);
    expect(t.paneRow(3)).toBe('line 4 of the reply');
    // Rows outside the pane: nothing to do.
    t.painter.inkWrote(new Set([0, 1]));
    await turn();
    expect(t.take().writes).toBe(0);

    // Not shown any more: what was painted is erased (Ink leaves rows it did not change alone),
    // and nothing is painted however the screen changes.
    t.painter.place(null);
    await t.term.parsed();
    expect(t.take().writes).toBe(1);
    for (let i = 0; i < REGION.height; i++) expect(t.paneRow(i)).toBe('');
    await t.output('more output\r\n');
    expect(t.take().writes).toBe(0);
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

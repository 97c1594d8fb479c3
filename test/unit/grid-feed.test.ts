// The host's grid feed (ptyd/grid-feed.ts) against a real headless screen: output written while a
// frame waits for the screen to parse is not lost (it gets the next frame); output that scrolls is
// sent as a move and the new rows only, to a viewer that takes moves, and the viewer's grid (which
// keeps each moved row's cells and id) shows what the screen shows, frame after frame.
import { describe, expect, it } from 'vitest';
import { applyMove, findMove } from '../../src/ptyd/grid-moves.js';
import type { GridRows } from '../../src/ptyd/framing.js';
import { GridFeed } from '../../src/ptyd/grid-feed.js';
import { RemoteGrid } from '../../src/pty/remote-grid.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { until } from '../support/until.js';

describe('GridFeed', () => {
  it('sends output that arrived between a frame’s parse mark and its callback in the next frame', async () => {
    const screen = new HeadlessScreen({ cols: 20, rows: 4, scrollback: 0 });
    const grid = new RemoteGrid(1, 1);
    const frames: GridRows[] = [];
    const feed = new GridFeed(screen, 0, (m) => {
      frames.push(m);
      grid.apply(m);
    });
    try {
      feed.flush();
      // The CLI writes again right after the frame asked the screen to parse what it had.
      const whenParsed = screen.whenParsed.bind(screen);
      let injected = false;
      screen.whenParsed = (cb: () => void): void => {
        whenParsed(cb);
        if (injected) return;
        injected = true;
        screen.write(' late');
        feed.changed();
      };
      screen.write('early');
      feed.changed();
      await until('the late output shown', () => grid.text(0) === 'early late');
      expect(frames.length).toBeGreaterThanOrEqual(3);
    } finally {
      feed.close();
      screen.dispose();
    }
  });

  it('sends what scrolled as a move and only the new rows, and the viewer keeps up', async () => {
    const screen = new HeadlessScreen({ cols: 30, rows: 12, scrollback: 0 });
    const grid = new RemoteGrid(1, 1);
    const frames: GridRows[] = [];
    const feed = new GridFeed(
      screen,
      0,
      (m) => {
        frames.push(m);
        grid.apply(m);
      },
      true,
    );
    const same = (): boolean => {
      const lines = screen.lines({ ansi: true });
      return lines.every((l, y) => grid.snapshot().ansiLines[y] === l);
    };
    try {
      // A CLI's screen: lines in a scroll region above a prompt that stays at the bottom.
      screen.write('\x1b[1;9r');
      for (let i = 0; i < 9; i++) screen.write(`\x1b[${i + 1};1H\x1b[3${i % 7}mreply line ${i}\x1b[0m`);
      screen.write('\x1b[10;1H──────\x1b[11;1H❯ \x1b[12;1H  ? for shortcuts');
      await screen.parsed();
      feed.flush();
      expect(frames.at(-1)!.full).toBe(true);
      const ids = Array.from({ length: 12 }, (_, y) => grid.rowId(y));
      for (let n = 9; n < 15; n++) {
        // Two new lines at the bottom of the region: the rest moves up two.
        screen.write(`\x1b[9;1H\r\nreply line ${n}\r\nreply line ${n}b`);
        await screen.parsed();
        feed.flush();
        const f = frames.at(-1)!;
        expect(f.moves).toEqual([{ top: 0, bottom: 8, by: 2 }]);
        expect(f.changed.map(([y]) => y)).toEqual([7, 8]);
        expect(same()).toBe(true);
      }
      // The rows that moved kept their ids (a reader's cells of them are still good), shifted.
      expect(grid.rowId(0)).not.toBe(ids[0]);
      expect(grid.rowId(9)).toBe(ids[9]);
      // A viewer that did not ask for moves gets every moved row instead.
      const plain = new GridFeed(screen, 0, (m) => frames.push(m), false);
      plain.flush();
      screen.write('\x1b[9;1H\r\nreply line x');
      await screen.parsed();
      plain.flush();
      expect(frames.at(-1)!.moves).toBeUndefined();
      expect(frames.at(-1)!.changed.length).toBe(9);
      plain.close();
    } finally {
      feed.close();
      screen.dispose();
    }
  });
});

describe('grid moves', () => {
  const row = (n: number): Uint32Array => Uint32Array.of(n, n + 1, n + 2);
  it('finds the shift that most rows took, up or down, and ignores rows like others', () => {
    const sent = [1, 2, 3, 4, 5, 6, 0, 0].map(row);
    // Up two: rows 2..5 are now at 0..3; the two blank rows (alike) count for nothing.
    expect(findMove(sent, [3, 4, 5, 6, 7, 8, 0, 0].map(row))).toEqual({ top: 0, bottom: 5, by: 2 });
    expect(findMove(sent, [9, 1, 2, 3, 4, 5, 0, 0].map(row))).toEqual({ top: 0, bottom: 5, by: -1 });
    // Two rows is too few to be worth a move.
    expect(findMove(sent, [3, 4, 9, 9, 9, 9, 0, 0].map(row))).toBeNull();
    expect(applyMove(['a', 'b', 'c', 'd'], { top: 1, bottom: 3, by: 1 }, () => '-')).toEqual(['a', 'c', 'd', '-']);
    expect(applyMove(['a', 'b', 'c', 'd'], { top: 0, bottom: 2, by: -2 }, () => '-')).toEqual(['-', '-', 'a', 'd']);
  });
});

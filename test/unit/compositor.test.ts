// The compositor against a terminal: frames and overlays in many shapes (styled text, wide
// characters, rows scrolling up and down beside rows that stay, an overlay moving and scrolling),
// each drawn by the compositor into one headless terminal and drawn whole into another. After every
// step both must show the same cells, text and colours; and the bytes stay far below drawing whole.
import { afterEach, describe, expect, it } from 'vitest';
import { PLAIN, type RowCells } from '../../src/ptyd/cells.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { Compositor, type Overlay, type OverlayRegion } from '../../src/ui/render/compositor.js';
import { parseLineCells } from '../../src/ui/render/line-cells.js';

const COLS = 48;
const ROWS = 20;
const FRAME = ROWS - 1;

const screens: HeadlessScreen[] = [];
afterEach(() => {
  for (const s of screens.splice(0)) s.dispose();
});

function term(): HeadlessScreen {
  const s = new HeadlessScreen({ cols: COLS, rows: ROWS, scrollback: 0 });
  screens.push(s);
  return s;
}

/** A small deterministic generator (mulberry32). */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['agent', 'running', '日本', 'ok', '✓', 'npm test', 'writing', '·', 'done', 'x'];
const STYLES: Array<[string, string]> = [
  ['\x1b[32m', '\x1b[39m'],
  ['\x1b[1m', '\x1b[22m'],
  ['\x1b[2m', '\x1b[22m'],
  ['\x1b[7m', '\x1b[27m'],
  ['\x1b[38;5;174m', '\x1b[39m'],
  ['\x1b[48;2;10;20;30m', '\x1b[49m'],
  ['\x1b[4;36m', '\x1b[24;39m'],
];

/** A line as Ink would write it: styled words, never wider than `max` (the screen). */
function line(r: () => number, max = COLS): string {
  let s = '';
  let w = 0;
  const n = Math.floor(r() * 6);
  for (let i = 0; i < n; i++) {
    const word = WORDS[Math.floor(r() * WORDS.length)]!;
    const width = [...word].reduce((a, c) => a + (c === '日' || c === '本' ? 2 : 1), 0) + 1;
    if (w + width > max) break;
    w += width;
    const st = r() < 0.5 ? STYLES[Math.floor(r() * STYLES.length)] : null;
    s += st ? `${st[0]}${word}${st[1]} ` : `${word} `;
  }
  return s.trimEnd();
}

class TestOverlay implements Overlay {
  region: OverlayRegion | null = null;
  cells: RowCells[] = [];
  rows(): readonly RowCells[] {
    return this.cells;
  }
}

/** What a screen shows, row by row, with colours. */
const shows = (s: HeadlessScreen): string[] => s.lines({ ansi: true });

/** The expected screen, drawn whole: the frame's lines, then the overlay's cells over them. */
function drawWhole(target: HeadlessScreen, lines: string[], o: TestOverlay): void {
  let out = '\x1b[2J\x1b[H';
  lines.forEach((l, y) => (out += `\x1b[${y + 1};1H${l}\x1b[0m`));
  if (o.region) {
    o.cells.forEach((row, i) => {
      out += `\x1b[${o.region!.y + i + 1};${o.region!.x + 1}H`;
      for (let x = 0; x < Math.min(row.chars.length, o.region!.width); x++) {
        if (row.chars[x] === '') continue;
        out += `\x1b[${row.looks[x]}m${row.chars[x]}`;
      }
      out += '\x1b[0m';
    });
  }
  target.write(out);
}

describe('compositor', () => {
  it('shows what drawing every frame whole shows, step after step, in far fewer bytes', async () => {
    let scrolls = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const r = rng(seed);
      const a = term();
      const b = term();
      let whole = 0;
      const screen = new Compositor(
        (s) => a.write(s),
        () => COLS,
      );
      const overlay = new TestOverlay();
      screen.addOverlay(overlay);
      let lines = Array.from({ length: FRAME }, () => line(r));
      // Ink leaves the overlay's region blank: text left of it, blanks, a border right of it.
      const framed = (ls: string[]): string[] => {
        const o = overlay.region;
        if (!o) return ls;
        return ls.map((l, y) => {
          if (y < o.y || y >= o.y + o.height) return l;
          const plain = l.replace(/\x1b\[[0-9;]*m/g, '').replace(/日|本/g, 'x');
          return `${plain.slice(0, o.x - 1).padEnd(o.x - 1)}│${' '.repeat(o.width)}│ ${plain.slice(o.x)}`
            .slice(0, COLS)
            .trimEnd();
        });
      };
      const overlayRow = (): RowCells => parseLineCells(line(r), overlay.region?.width ?? 10);
      for (let step = 0; step < 60; step++) {
        const op = r();
        if (op < 0.3) {
          // A band scrolls by 1–3 rows (a log or a session), new lines coming in.
          const top = Math.floor(r() * 8);
          const bottom = top + 4 + Math.floor(r() * (FRAME - top - 5));
          const k = 1 + Math.floor(r() * 3);
          const band = lines.slice(top, bottom + 1);
          const moved =
            r() < 0.7
              ? [...band.slice(k), ...band.slice(0, k).map(() => line(r))]
              : [...band.slice(0, k).map(() => line(r)), ...band.slice(0, -k)];
          lines = [...lines.slice(0, top), ...moved, ...lines.slice(bottom + 1)];
        } else if (op < 0.5) {
          lines = lines.map((l) => (r() < 0.15 ? line(r) : l));
        } else if (op < 0.6) {
          overlay.region =
            r() < 0.2 ? null : { x: 10 + Math.floor(r() * 10), y: 1 + Math.floor(r() * 4), width: 20, height: 10 };
          overlay.cells = Array.from({ length: Math.floor(r() * 11) }, overlayRow);
        } else if (op < 0.8 && overlay.region) {
          // The overlay's content scrolls up one row.
          overlay.cells = [...overlay.cells.slice(1), overlayRow()];
        } else if (overlay.region) {
          const i = Math.floor(r() * 10);
          overlay.cells = overlay.cells.map((c, j) => (j === i ? overlayRow() : c));
        }
        const shown = framed(lines);
        screen.frame(shown);
        await Promise.resolve();
        drawWhole(b, shown, overlay);
        whole += shown.join('').length;
        await Promise.all([a.parsed(), b.parsed()]);
        expect(shows(a), `seed ${seed}, step ${step}`).toEqual(shows(b));
        const cur = a.term.buffer.active;
        expect([cur.cursorX, cur.cursorY]).toEqual([0, FRAME]);
      }
      expect(screen.bytes).toBeLessThan(whole);
      scrolls += screen.scrolls;
    }
    // Many of those steps were drawn by scrolling (the terminal moving rows), both ways.
    expect(scrolls).toBeGreaterThan(50);
  });

  it('writes only the cell that changed, and nothing when nothing did', async () => {
    const a = term();
    const written: string[] = [];
    const screen = new Compositor(
      (s) => {
        written.push(s);
        a.write(s);
      },
      () => COLS,
    );
    const lines = Array.from({ length: FRAME }, (_, y) => `\x1b[32mrow ${y}\x1b[39m  status 5s`);
    screen.frame(lines);
    await Promise.resolve();
    screen.frame([...lines]);
    await Promise.resolve();
    expect(written).toHaveLength(1);
    screen.frame(lines.map((l, y) => (y === 7 ? l.replace('5s', '6s') : l)));
    await Promise.resolve();
    expect(written[1]).toBe('\x1b[?2026h\x1b[8;15H6\x1b[20;1H\x1b[?2026l');
    screen.frame(lines.map((l, y) => (y === 7 ? l.replace('row 7', 'row 8') : l)));
    await Promise.resolve();
    expect(written[2]).toBe('\x1b[?2026h\x1b[8;5H\x1b[0;32m8\x1b[8;15H\x1b[0m5\x1b[20;1H\x1b[?2026l');
  });

  it('draws nothing after invalidate until the next frame, then every row', async () => {
    const a = term();
    const written: string[] = [];
    const screen = new Compositor(
      (s) => {
        written.push(s);
        a.write(s);
      },
      () => COLS,
    );
    const overlay = new TestOverlay();
    screen.addOverlay(overlay);
    screen.frame(['one', 'two']);
    await Promise.resolve();
    screen.invalidate();
    overlay.region = { x: 0, y: 0, width: 3, height: 1 };
    overlay.cells = [parseLineCells('abc', 3)];
    screen.changed(); // the overlay moved: no frame to draw it on yet
    await Promise.resolve();
    expect(written).toHaveLength(1);
    screen.frame(['one', 'three']);
    await Promise.resolve();
    expect(written[1]).toBe('\x1b[?2026h\x1b[1;1H\x1b[2Kabc\x1b[2;1H\x1b[2Kthree\x1b[3;1H\x1b[J\x1b[3;1H\x1b[?2026l');
  });
});

describe('frame lines as cells', () => {
  it('reads text and SGR as a terminal does: looks from a reset, wide characters in two cells', () => {
    const row = parseLineCells('a\x1b[1;32mb\x1b[22mc\x1b[39m 日\x1b[7mx\x1b[0m', 8);
    expect(row.chars).toEqual(['a', 'b', 'c', ' ', '日', '', 'x', ' ']);
    expect(row.looks).toEqual([PLAIN, '0;1;32', '0;32', PLAIN, PLAIN, PLAIN, '0;7', PLAIN]);
    // Cut at the width, a wide character that does not fit left out.
    expect(parseLineCells('abc日', 4).chars).toEqual(['a', 'b', 'c', ' ']);
    expect(parseLineCells('\x1b[38;2;1;2;3;48;5;9mz', 1).looks).toEqual(['0;38;2;1;2;3;48;5;9']);
  });
});

// The bundle's stand-in for Ink's output builder (src/ui/render/frame-output.ts) against Ink's
// own: random frames of styled, wide and clipped text, written frame after frame so the stand-in's
// memos (rows, pieces, tokenised lines, widths) are reused the way a dashboard reuses them. Both
// frames are drawn on a headless terminal and must show the same cells: characters, colours and
// attributes (the bytes may differ where neighbouring pieces share a style).
import { describe, expect, it } from 'vitest';
// Ink does not export its Output; the test reads it from the installed package by path.
import InkOutput from '../../node_modules/ink/build/output.js';
import FrameOutput from '../../src/ui/render/frame-output.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { TwoGenerations } from '../../src/ui/render/memo.js';

type Transformer = (line: string, index: number) => string;
type Op =
  | { type: 'write'; x: number; y: number; text: string; transformers: Transformer[] }
  | { type: 'clip'; clip: { x1?: number; x2?: number; y1?: number; y2?: number } }
  | { type: 'unclip' };

/** mulberry32: the same frames on every run. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'claude',
  'npm test',
  '✓ done',
  '日本語',
  '👍🏽',
  'e\u0301',
  '─────',
  '│',
  ' ',
  'Bash: ls -la',
  '12s writing',
  '⠋',
];
const STYLES = [
  '\x1b[1m',
  '\x1b[2m',
  '\x1b[31m',
  '\x1b[38;5;208m',
  '\x1b[38;2;10;200;30m',
  '\x1b[44m',
  '\x1b[7m',
  '\x1b[4m',
];
const RESETS = ['\x1b[22m', '\x1b[39m', '\x1b[49m', '\x1b[27m', '\x1b[24m', '\x1b[0m'];
const upper: Transformer = (line) => line.toUpperCase();
const numbered: Transformer = (line, i) => `${i}:${line}`;

function text(r: () => number): string {
  const lines: string[] = [];
  const n = r() < 0.7 ? 1 : 1 + Math.floor(r() * 4);
  for (let l = 0; l < n; l++) {
    let s = '';
    const parts = Math.floor(r() * 5);
    for (let p = 0; p < parts; p++) {
      if (r() < 0.4) s += STYLES[Math.floor(r() * STYLES.length)];
      s += WORDS[Math.floor(r() * WORDS.length)];
      if (r() < 0.3) s += RESETS[Math.floor(r() * RESETS.length)];
    }
    lines.push(s);
  }
  return lines.join('\n');
}

function frame(r: () => number, width: number, height: number): Op[] {
  const ops: Op[] = [];
  let depth = 0;
  const count = 5 + Math.floor(r() * 40);
  for (let i = 0; i < count; i++) {
    const k = r();
    if (k < 0.1) {
      const x1 = Math.floor(r() * width);
      const y1 = Math.floor(r() * height);
      ops.push({
        type: 'clip',
        clip:
          r() < 0.8
            ? { x1, x2: x1 + Math.floor(r() * width), y1, y2: y1 + Math.floor(r() * height) }
            : { y1, y2: y1 + 3 },
      });
      depth++;
    } else if (k < 0.15 && depth > 0) {
      ops.push({ type: 'unclip' });
      depth--;
    } else {
      const t = r();
      const transformers = t < 0.1 ? [upper] : t < 0.15 ? [numbered, upper] : [];
      ops.push({
        type: 'write',
        x: Math.floor(r() * (width + 4)) - 2,
        y: Math.floor(r() * (height + 4)) - 2,
        text: text(r),
        transformers,
      });
    }
  }
  return ops;
}

function render<
  T extends { write: InkOutput['write']; clip: InkOutput['clip']; unclip: InkOutput['unclip']; get: InkOutput['get'] },
>(out: T, ops: Op[]): { output: string; height: number } {
  for (const op of ops) {
    if (op.type === 'write') out.write(op.x, op.y, op.text, { transformers: op.transformers });
    else if (op.type === 'clip') out.clip(op.clip as Parameters<InkOutput['clip']>[0]);
    else out.unclip();
  }
  return out.get();
}

/** What a frame shows: each cell's character, width, colours and attributes. */
async function cells(frame: { output: string; height: number }, width: number): Promise<string[]> {
  // Wider than the frame: Ink lets text that is wider than its frame run past it.
  const screen = new HeadlessScreen({ cols: width + 40, rows: frame.height + 1, scrollback: 0 });
  try {
    screen.write(frame.output.split('\n').join('\r\n'));
    await screen.parsed();
    const buf = screen.term.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < frame.height; y++) {
      const line = buf.getLine(y)!;
      let row = '';
      for (let x = 0; x < width + 40; x++) {
        const c = line.getCell(x)!;
        row += `${c.getChars() || '·'}${c.getWidth()}${c.getFgColorMode()}:${c.getFgColor()}/${c.getBgColorMode()}:${c.getBgColor()}`;
        row += `${c.isBold()}${c.isDim()}${c.isItalic()}${c.isUnderline()}${c.isInverse()}${c.isStrikethrough()}|`;
      }
      rows.push(row);
    }
    return rows;
  } finally {
    screen.dispose();
  }
}

describe('frame output', () => {
  it('shows the same frames as Ink, frame after frame', async () => {
    const r = rng(7);
    let previous: Op[] = [];
    for (let f = 0; f < 400; f++) {
      const width = f % 50 === 49 ? 20 + Math.floor(r() * 100) : 80;
      const height = 12;
      // Most frames repeat most of the last one (as a dashboard's do): its ops with a few changed.
      const ops =
        f > 0 && r() < 0.7
          ? previous.map((op) => (op.type === 'write' && r() < 0.1 ? { ...op, text: text(r) } : op))
          : frame(r, width, height);
      previous = ops;
      const expected = render(new InkOutput({ width, height }), ops);
      const got = render(new FrameOutput({ width, height }), ops);
      expect(got.height).toBe(expected.height);
      if (got.output !== expected.output)
        expect(await cells(got, width), `frame ${f}`).toEqual(await cells(expected, width));
    }
  });

  it('matches Ink on the cases that need care', async () => {
    const cases: Array<[number, number, Op[]]> = [
      [10, 3, [{ type: 'write', x: 0, y: 0, text: '日本語日本語', transformers: [] }]],
      [10, 3, [{ type: 'write', x: 0, y: -1, text: 'a\nb\nc\nd', transformers: [numbered] }]],
      [
        10,
        3,
        [
          { type: 'write', x: 0, y: 0, text: '\x1b[31mred', transformers: [] },
          { type: 'write', x: 1, y: 0, text: 'X', transformers: [] },
        ],
      ],
      [
        10,
        3,
        [
          { type: 'clip', clip: { x1: 2, x2: 5, y1: 1, y2: 2 } },
          { type: 'write', x: 0, y: 0, text: '0123456789\nabcdefghij\nABCDEFGHIJ', transformers: [] },
          { type: 'unclip' },
        ],
      ],
      [4, 2, [{ type: 'write', x: 2, y: 0, text: 'wider than the frame', transformers: [] }]],
      [
        6,
        2,
        [
          { type: 'write', x: 0, y: 0, text: '', transformers: [] },
          { type: 'write', x: 0, y: 1, text: '   ', transformers: [] },
        ],
      ],
    ];
    for (const [width, height, ops] of cases) {
      expect(await cells(render(new FrameOutput({ width, height }), ops), width)).toEqual(
        await cells(render(new InkOutput({ width, height }), ops), width),
      );
    }
  });
});

describe('side-by-side pieces', () => {
  it('are joined as drawn on their own: other bytes than Ink, the same cells', async () => {
    const ops: Op[] = [
      { type: 'write', x: 0, y: 0, text: '\x1b[31mab\x1b[39m', transformers: [] },
      { type: 'write', x: 2, y: 0, text: '\x1b[31mcd\x1b[39m', transformers: [] },
      { type: 'write', x: 8, y: 0, text: 'e\u0301 日本', transformers: [] },
      { type: 'write', x: 16, y: 0, text: '│', transformers: [] },
    ];
    const ink = render(new InkOutput({ width: 20, height: 1 }), ops);
    const ours = render(new FrameOutput({ width: 20, height: 1 }), ops);
    expect(ours.output).not.toBe(ink.output); // joined, not rebuilt cell by cell
    expect(await cells(ours, 20)).toEqual(await cells(ink, 20));
  });
});

describe('an empty piece', () => {
  it('changes no cell: a row where clipping left one over its other pieces is still joined (a box’s bottom row)', async () => {
    // The second line of the clipped text is cut to '' at x = 4, on the border's row.
    const ops: Op[] = [
      { type: 'write', x: 0, y: 1, text: '\x1b[36m╰──\x1b[39m', transformers: [] },
      { type: 'write', x: 3, y: 1, text: '\x1b[36m──╯\x1b[39m', transformers: [] },
      { type: 'clip', clip: { x1: 4, x2: 10 } },
      { type: 'write', x: 0, y: 0, text: 'abcdef\nab', transformers: [] },
      { type: 'unclip' },
    ];
    const ours = render(new FrameOutput({ width: 10, height: 2 }), ops);
    const ink = render(new InkOutput({ width: 10, height: 2 }), ops);
    // Joined (each piece as drawn on its own): other bytes than Ink's cell-by-cell row, the same cells.
    expect(ours.output.split('\n')[1]).not.toBe(ink.output.split('\n')[1]);
    expect(await cells(ours, 10)).toEqual(await cells(ink, 10));
  });
});

describe('TwoGenerations', () => {
  it('keeps what was used lately and stays bounded', () => {
    const m = new TwoGenerations<number>(3);
    let made = 0;
    const get = (k: string): number => m.get(k, () => ++made);
    expect([get('a'), get('b'), get('a')]).toEqual([1, 2, 1]);
    for (const k of ['c', 'd', 'e', 'f', 'g', 'h']) get(k);
    expect(m.size).toBeLessThanOrEqual(6);
    const before = made;
    get('h');
    expect(made).toBe(before); // recent: still there
    get('a');
    expect(made).toBe(before + 1); // long unused: made again
  });
});

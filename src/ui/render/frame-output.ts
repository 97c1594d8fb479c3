/**
 * Stands in for Ink's own `ink/build/output.js` in the bundle (scripts/build.mjs swaps the module):
 * the same contract and the same bytes out, without rebuilding every row of every frame.
 *
 * Ink makes a new Output per frame and turns each row into a string by tokenising every line
 * written to it into styled cells, then diffing the cells' styles back into escape codes. A
 * dashboard frame differs from the last one in a few rows (a clock, a growing line of text), so
 * most of that work repeats itself: it was about two thirds of a frame's CPU. Here each row is
 * keyed by what was written to it (its pieces: column and text, after clipping and transformers),
 * and a row whose key was built recently is reused as a string; a new row whose pieces sit side
 * by side is joined from the pieces drawn on their own (a scrolling pane gives each row a new
 * key, but the same pieces). The tokenised lines, clipped slices and widths are memoised across
 * frames as well. Every memo keeps two generations, so what the current frames use stays and
 * the rest goes: memory stays flat however long the text streams.
 *
 * test/unit/frame-output.test.ts holds this to Ink's Output: the same screen, cell by cell.
 */
import { styledCharsFromTokens, styledCharsToString, tokenize, type StyledChar } from '@alcalzone/ansi-tokenize';
import sliceAnsi from 'slice-ansi';
import { TwoGenerations } from './memo.js';
import widestLine, { textWidth as width } from './text-width.js';
import { plainLine, type PlainLine } from './plain-line.js';

type Transformer = (line: string, index: number) => string;
interface Clip {
  x1?: number;
  x2?: number;
  y1?: number;
  y2?: number;
}
type Operation =
  | { type: 'write'; x: number; y: number; text: string; transformers: Transformer[] }
  | { type: 'clip'; clip: Clip }
  | { type: 'unclip' };

const styled = new TwoGenerations<StyledChar[]>(2048);
const slices = new TwoGenerations<string>(2048);
const rows = new TwoGenerations<string>(1024);

const styledChars = (line: string): StyledChar[] => styled.get(line, () => styledCharsFromTokens(tokenize(line)));
const slice = (line: string, from: number, to: number): string =>
  slices.get(`${from}:${to}:${line}`, () => sliceAnsi(line, from, to));

const plains = new TwoGenerations<PlainLine | null>(2048);
const plain = (line: string): PlainLine | null => plains.get(line, plainLine);

const BLANK: StyledChar = Object.freeze({ type: 'char', value: ' ', fullWidth: false, styles: [] }) as StyledChar;

/**
 * The cells a line takes in Ink's grid: each of its characters takes its width, at least one.
 * (Not string-width's answer for the line: a combining mark counts as a cell here, as in Ink.)
 */
const spans = new TwoGenerations<number>(2048);
const span = (line: string): number =>
  spans.get(line, () => {
    const p = plain(line);
    if (p) return p.width;
    let n = 0;
    for (const c of styledChars(line)) n += Math.max(1, width(c.value));
    return n;
  });

/**
 * One line drawn on its own: its styles opened and closed around it. A plain line (one column per
 * character, SGR codes only: plain-line.ts) is its own drawing, with a reset after it if it leaves
 * a style set; the rest go through Ink's tokeniser.
 */
const drawn = new TwoGenerations<string>(2048);
const drawnAtEnd = new TwoGenerations<string>(1024);
const RESET = '\u001b[0m';
const drawnLine = (line: string): string =>
  drawn.get(line, () => {
    const p = plain(line);
    if (p) return p.open ? line + RESET : line;
    return styledCharsToString(styledChars(line));
  });
/** The same, as the last text of its row (whose trailing blanks Ink trims). */
const drawnLast = (line: string): string =>
  drawnAtEnd.get(line, () => {
    const p = plain(line);
    if (p) return line.slice(0, p.tail) + (p.tailOpen ? RESET : '');
    return drawnLine(line);
  });

/**
 * A row whose pieces sit side by side (the usual case: panes, borders, columns): the pieces
 * drawn on their own, joined with the blanks between them. It shows the same cells as Ink's
 * row; the bytes may differ where two neighbours share a style (each piece closes its own). A
 * row whose pieces overlap, or reach past the frame, is built cell by cell as Ink does.
 */
function joinRow(columns: number, all: Array<[number, string]>): string | null {
  // An empty piece changes no cell (Ink lays no character of it): leaving it out keeps a row whose
  // other pieces meet end to end on this path, instead of building it cell by cell.
  const pieces = all.some((p) => p[1] === '') ? all.filter((p) => p[1] !== '') : all;
  // (sort is stable: pieces at one column keep their order, and then overlap, so are built cell by cell)
  const order = pieces.length > 1 ? [...pieces].sort((a, b) => a[0] - b[0]) : pieces;
  let at = 0;
  // The row ends with the last piece that shows more than unstyled blanks (Ink trims those).
  let last = -1;
  for (let i = 0; i < order.length; i++) {
    const piece = order[i]!;
    const x = piece[0];
    const line = piece[1];
    if (!Number.isInteger(x) || x < at) return null;
    const w = span(line);
    if (x + w > columns) return null;
    at = x + w;
    if (w > 0 && (plain(line)?.tail ?? 1) > 0) last = i;
  }
  let out = '';
  at = 0;
  for (let i = 0; i <= last; i++) {
    const piece = order[i]!;
    const x = piece[0];
    const line = piece[1];
    if (x > at) out += ' '.repeat(x - at);
    out += i === last ? drawnLast(line) : drawnLine(line);
    at = x + span(line);
  }
  return out.trimEnd();
}

/** The row as Ink builds it: blank cells, each piece's cells laid over them in order, trailing blanks trimmed. */
function buildRow(columns: number, pieces: Array<[number, string]>): string {
  const cells: Array<StyledChar | undefined> = new Array<StyledChar>(columns).fill(BLANK);
  for (const [x, line] of pieces) {
    let offsetX = x;
    for (const character of styledChars(line)) {
      cells[offsetX] = character;
      const w = Math.max(1, width(character.value));
      // A wide character's second cell is empty (and keeps its style), as in Ink.
      for (let i = 1; i < w; i++)
        cells[offsetX + i] = { type: 'char', value: '', fullWidth: false, styles: character.styles };
      offsetX += w;
    }
  }
  return styledCharsToString(cells.filter((c): c is StyledChar => c !== undefined)).trimEnd();
}

export default class Output {
  width: number;
  height: number;
  operations: Operation[] = [];

  constructor(options: { width: number; height: number }) {
    this.width = options.width;
    this.height = options.height;
  }

  write(x: number, y: number, text: string, options: { transformers: Transformer[] }): void {
    if (!text) return;
    this.operations.push({ type: 'write', x, y, text, transformers: options.transformers });
  }

  clip(clip: Clip): void {
    this.operations.push({ type: 'clip', clip });
  }

  unclip(): void {
    this.operations.push({ type: 'unclip' });
  }

  get(): { output: string; height: number } {
    const pieces: Array<Array<[number, string]> | undefined> = new Array<Array<[number, string]> | undefined>(
      this.height,
    );
    const clips: Clip[] = [];
    // (index loops, no destructuring: the dashboard runs baseline code, where each step of an
    // iterator, a for-of's or a destructuring's, allocates)
    for (let i = 0; i < this.operations.length; i++) {
      const op = this.operations[i]!;
      if (op.type === 'clip') clips.push(op.clip);
      else if (op.type === 'unclip') clips.pop();
      else this.place(op, clips.at(-1), pieces);
    }
    const out: string[] = new Array<string>(this.height);
    for (let y = 0; y < this.height; y++) {
      const row = pieces[y];
      if (!row) {
        out[y] = '';
        continue;
      }
      let key = `${this.width}`;
      for (let i = 0; i < row.length; i++) key += `\u0000${row[i]![0]}\u0001${row[i]![1]}`;
      out[y] = rows.get(key, () => joinRow(this.width, row) ?? buildRow(this.width, row));
    }
    return { output: out.join('\n'), height: this.height };
  }

  /** One write, clipped and transformed as Ink does, added to the pieces of the rows it lands on. */
  private place(
    op: Extract<Operation, { type: 'write' }>,
    clip: Clip | undefined,
    pieces: Array<Array<[number, string]> | undefined>,
  ): void {
    let { x, y } = op;
    let lines = op.text.split('\n');
    if (clip) {
      const clipX = typeof clip.x1 === 'number' && typeof clip.x2 === 'number';
      const clipY = typeof clip.y1 === 'number' && typeof clip.y2 === 'number';
      if (clipX && (x + widestLine(op.text) < clip.x1! || x > clip.x2!)) return;
      if (clipY && (y + lines.length < clip.y1! || y > clip.y2!)) return;
      if (clipX) {
        const x1 = clip.x1!;
        const x2 = clip.x2!;
        lines = lines.map((line) => {
          const from = x < x1 ? x1 - x : 0;
          const w = width(line);
          const to = x + w > x2 ? x2 - x : w;
          return slice(line, from, to);
        });
        if (x < x1) x = x1;
      }
      if (clipY) {
        const from = y < clip.y1! ? clip.y1! - y : 0;
        const to = y + lines.length > clip.y2! ? clip.y2! - y : lines.length;
        lines = lines.slice(from, to);
        if (y < clip.y1!) y = clip.y1!;
      }
    }
    let offsetY = 0;
    for (let index = 0; index < lines.length; index++) {
      const r = y + offsetY;
      // A row outside the frame is skipped without moving on, exactly as Ink's loop does.
      if (r < 0 || r >= this.height || !Number.isInteger(r)) continue;
      let line = lines[index]!;
      for (let t = 0; t < op.transformers.length; t++) line = op.transformers[t]!(line, index);
      (pieces[r] ??= []).push([x, line]);
      offsetY++;
    }
  }
}

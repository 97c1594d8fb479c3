/**
 * A line of Ink's frame as terminal cells: each cell's text and its look, the SGR parameters from
 * a reset in the order ptyd/cells.ts `look()` writes them ("0" plain, "0;1;32" bold green), so the
 * frame's cells and a PTY session's cells compare and draw alike (compositor.ts).
 *
 * Frame lines hold printable text and SGR codes only (Ink builds them; frame-output.ts); any other
 * escape sequence is dropped. A wide character takes its cell and an empty one after it ('', as
 * cells.ts does), a zero-width one joins the cell before it.
 */
import { blankRow, PLAIN, type RowCells } from '../../ptyd/cells.js';
import { charWidth } from '../text.js';
import { narrow } from './plain-line.js';

/** Attribute codes in look order, each with the codes that turn it off. */
const ATTRS: ReadonlyArray<readonly [number, readonly number[]]> = [
  [1, [22]],
  [2, [22]],
  [3, [23]],
  [4, [24]],
  [5, [25]],
  [7, [27]],
  [8, [28]],
  [9, [29]],
  [53, [55]],
];
const BIT = new Map(ATTRS.map(([code], i) => [code, 1 << i]));
const OFF = new Map<number, number>();
ATTRS.forEach(([, offs], i) => {
  for (const o of offs) OFF.set(o, (OFF.get(o) ?? 0) | (1 << i));
});

interface Pen {
  attrs: number;
  fg: string;
  bg: string;
}

/** Apply one SGR's parameters to the pen. */
function applySgr(pen: Pen, params: string): void {
  const p = params === '' ? [0] : params.split(';').map((x) => (x === '' ? 0 : Number(x)));
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === 0) {
      pen.attrs = 0;
      pen.fg = '';
      pen.bg = '';
    } else if (BIT.has(c)) pen.attrs |= BIT.get(c)!;
    else if (OFF.has(c)) pen.attrs &= ~OFF.get(c)!;
    else if ((c >= 30 && c <= 37) || (c >= 90 && c <= 97)) pen.fg = `;${c}`;
    else if ((c >= 40 && c <= 47) || (c >= 100 && c <= 107)) pen.bg = `;${c}`;
    else if (c === 39) pen.fg = '';
    else if (c === 49) pen.bg = '';
    else if (c === 38 || c === 48) {
      const mode = p[i + 1];
      const n = mode === 5 ? 2 : mode === 2 ? 4 : 0;
      if (n === 0) return; // malformed: the rest of the sequence means nothing
      const colour = `;${c};${p.slice(i + 1, i + 1 + n).join(';')}`;
      if (c === 38) pen.fg = colour;
      else pen.bg = colour;
      i += n;
    }
  }
}

/**
 * One string per distinct look and character: rows are compared cell by cell many times a frame
 * (compositor.ts, scroll-plan.ts), and equal strings that are one object compare at once.
 */
const looks = new Map<string, string>();
const chars = new Map<number, string>();

function intern<K>(m: Map<K, string>, k: K, s: string): string {
  const had = m.get(k);
  if (had !== undefined) return had;
  if (m.size > 4096) m.clear();
  m.set(k, s);
  return s;
}

function lookOf(pen: Pen): string {
  if (pen.attrs === 0 && pen.fg === '' && pen.bg === '') return PLAIN;
  let s = PLAIN;
  for (let i = 0; i < ATTRS.length; i++) if (pen.attrs & (1 << i)) s += `;${ATTRS[i]![0]}`;
  s += pen.fg + pen.bg;
  return intern(looks, s, s);
}

const ESCAPE = /\x1b(?:\[([0-?]*)([ -/]*)([@-~])|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])?/y;

/**
 * The look after an SGR, from the look before it: looks are absolute (SGR parameters from a
 * reset), so the answer depends on nothing else, and a frame uses a handful of them over and over.
 */
const transitions = new Map<string, string>();

function nextLook(look: string, params: string): string {
  const key = `${look}\u0000${params}`;
  const had = transitions.get(key);
  if (had !== undefined) return had;
  const pen: Pen = { attrs: 0, fg: '', bg: '' };
  applySgr(pen, look);
  applySgr(pen, params);
  const next = lookOf(pen);
  if (transitions.size > 4096) transitions.clear();
  transitions.set(key, next);
  return next;
}

/** Printable ASCII as one-character strings (most of a frame). */
const ASCII: readonly string[] = Array.from({ length: 0x7f }, (_, c) => String.fromCharCode(c));

/** A character's text (one object per character: see intern) and its width in cells. */
function charOf(cp: number): [string, number] {
  if (cp >= 0x20 && cp < 0x7f) return [ASCII[cp]!, 1];
  const ch = intern(chars, cp, String.fromCodePoint(cp));
  return [ch, narrow(cp) ? 1 : charWidth(ch)];
}

/** The first `width` cells of a frame line (blank past its end). */
export function parseLineCells(line: string, width: number): RowCells {
  const row = blankRow(width);
  let look = PLAIN;
  let x = 0;
  let i = 0;
  while (i < line.length && x < width) {
    const code = line.charCodeAt(i);
    if (code === 0x1b) {
      ESCAPE.lastIndex = i;
      const m = ESCAPE.exec(line);
      if (m && m[3] === 'm' && m[2] === '') look = nextLook(look, m[1]!);
      i += m ? m[0].length : 1;
      continue;
    }
    if (code >= 0x20 && code < 0x7f) {
      row.chars[x] = ASCII[code]!;
      row.looks[x++] = look;
      i++;
      continue;
    }
    const cp = line.codePointAt(i)!;
    i += cp > 0xffff ? 2 : 1;
    if (cp < 0x20 || cp === 0x7f) continue;
    const [ch, w] = charOf(cp);
    if (w === 0) {
      if (x > 0) row.chars[x - 1] += ch;
      continue;
    }
    if (x + w > width) break;
    row.chars[x] = ch;
    row.looks[x++] = look;
    if (w === 2) {
      row.chars[x] = '';
      row.looks[x++] = look;
    }
  }
  return row;
}

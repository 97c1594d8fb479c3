/**
 * Drawing one terminal row over what it shows, as a multiplexer does: only the cells that differ,
 * in spans (a short run of equal cells between two changes is written through rather than jumped
 * over), each addressed by its row and column. Pure: the caller keeps what the terminal shows.
 */
import { PLAIN, type RowCells } from '../../ptyd/cells.js';

const CSI = '\x1b[';
/** Equal cells between two changes that are written through rather than jumped over (a jump is ~8 bytes). */
const GAP = 6;
/** Blanks written as blanks up to this many; more are erased (ECH/EL). */
const BLANKS = 4;

/** The pen the terminal draws with (an SGR look: ptyd/cells.ts), carried across a write. */
export interface PenState {
  look: string;
}

/**
 * Cells `from..to` (inclusive) of `next`, written from the cursor at `from`. Plain blanks at the
 * end are erased ('end': they reach the row's end; 'span': they don't) or left ('none': the row
 * was just erased).
 */
function cellsText(next: RowCells, from: number, to: number, pen: PenState, blanksAt: 'end' | 'span' | 'none'): string {
  const { chars, looks } = next;
  let end = to;
  while (end >= from && chars[end] === ' ' && looks[end] === PLAIN) end--;
  let out = '';
  let c = from;
  while (c <= end) {
    // (the second half of a wide character, '', is written with its first: as nothing)
    if (chars[c] === '') {
      c++;
      continue;
    }
    const look = looks[c]!;
    let r = c + 1;
    while (r <= end && (looks[r] === look || chars[r] === '')) r++;
    if (look !== pen.look) {
      out += `${CSI}${look}m`;
      pen.look = look;
    }
    // A run of one look joined at once: adding its characters one by one makes a string each.
    out += r - c === 1 ? chars[c]! : chars.slice(c, r).join('');
    c = r;
  }
  const blanks = to - end;
  if (blanks > 0 && blanksAt !== 'none') {
    if (pen.look !== PLAIN) {
      out += `${CSI}0m`;
      pen.look = PLAIN;
    }
    if (blanksAt === 'end' && blanks > BLANKS) out += `${CSI}K`;
    else out += blanks > BLANKS ? `${CSI}${blanks}X` : ' '.repeat(blanks);
  }
  return out;
}

/**
 * What turns row `y` (0-based) from `prev` into `next` ('' when they are the same). `prev` null:
 * the row is unknown, so it is erased and written whole.
 */
export function drawRow(prev: RowCells | null, next: RowCells, y: number, pen: PenState): string {
  const width = next.chars.length;
  if (!prev) {
    let out = `${CSI}${y + 1};1H`;
    if (pen.look !== PLAIN) {
      out += `${CSI}0m`;
      pen.look = PLAIN;
    }
    return `${out}${CSI}2K${cellsText(next, 0, width - 1, pen, 'none')}`;
  }
  if (prev === next) return '';
  // (cells compared inline: the dashboard runs baseline code, which calls every helper it is given)
  const pc = prev.chars;
  const nc = next.chars;
  const pl = prev.looks;
  const nl = next.looks;
  let out = '';
  let x = 0;
  while (x < width) {
    if (pc[x] === nc[x] && pl[x] === nl[x]) {
      x++;
      continue;
    }
    let a = x;
    let b = x;
    let run = 0;
    for (let c = x + 1; c < width; c++) {
      if (pc[c] === nc[c] && pl[c] === nl[c]) {
        if (++run > GAP) break;
      } else {
        b = c;
        run = 0;
      }
    }
    // Never start or end inside a wide character (old or new).
    while (a > 0 && (nc[a] === '' || pc[a] === '')) a--;
    while (b + 1 < width && (nc[b + 1] === '' || pc[b + 1] === '')) b++;
    out += `${CSI}${y + 1};${a + 1}H${cellsText(next, a, b, pen, b === width - 1 ? 'end' : 'span')}`;
    x = b + 1;
  }
  return out;
}

/**
 * About what drawing `next` over `prev` costs, in bytes (0: nothing to draw). For choosing, not
 * exact. Counting stops once past `cap` (the answer is then some number above it).
 */
export function rowCost(prev: RowCells, next: RowCells, cap = Infinity): number {
  if (prev === next) return 0;
  const width = Math.min(prev.chars.length, next.chars.length);
  const pc = prev.chars;
  const nc = next.chars;
  const pl = prev.looks;
  const nl = next.looks;
  let n = 0;
  let run = GAP + 1;
  for (let x = 0; x < width; x++) {
    if (pc[x] === nc[x] && pl[x] === nl[x]) {
      run++;
      continue;
    }
    n += run > GAP ? 9 : 1; // a new span: its cursor move
    run = 0;
    if (n > cap) return n;
  }
  return n;
}

/** About what drawing `next` on a blank row costs. */
export function blankCost(next: RowCells): number {
  const { chars, looks } = next;
  let n = 0;
  for (let x = 0; x < chars.length; x++) if (chars[x] !== ' ' || looks[x] !== PLAIN) n++;
  return n === 0 ? 0 : n + 8;
}

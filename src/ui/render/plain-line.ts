/**
 * The quick answer for the lines a dashboard frame is made of: printable characters that each take
 * one column, styled with SGR codes only. For such a line the width is its character count, and
 * the line drawn as it is shows the same cells as Ink's cell-by-cell rebuild of it, so neither
 * string-width (Intl.Segmenter) nor @alcalzone/ansi-tokenize (an object per character) is needed.
 * Anything else (wide or combining characters, emoji, other escape sequences, unknown SGR codes)
 * gets null, and the caller takes the general path.
 *
 * test/unit/plain-line.test.ts holds NARROW to string-width, code point by code point.
 */

/**
 * Ranges of code points string-width counts as one column, alone and beside others: Latin,
 * punctuation, letterlike signs, arrows, maths, technical signs (⏎ ⌫), box drawing, blocks and
 * shapes, and the text-style dingbats (✓ ✗ ⚠). Sorted, inclusive, flat pairs.
 */
export const NARROW: readonly number[] = [
  0x20, 0x7e, 0xa0, 0xac, 0xae, 0x2ff, 0x2010, 0x2029, 0x202f, 0x205f, 0x2070, 0x20cf, 0x20f1, 0x2319, 0x231c, 0x2328,
  0x232b, 0x23e8, 0x23f4, 0x25fc, 0x25ff, 0x25ff, 0x26a0, 0x26a0, 0x2713, 0x2718,
];

export function narrow(c: number): boolean {
  if (c >= 0x20 && c <= 0x7e) return true;
  for (let i = 2; i < NARROW.length; i += 2) {
    if (c < NARROW[i]!) return false;
    if (c <= NARROW[i + 1]!) return true;
  }
  return false;
}

export interface PlainLine {
  /** Columns the line takes. */
  width: number;
  /** Some style is still set where the line ends (a reset must follow it before other text). */
  open: boolean;
  /**
   * Where the line ends as the last text of a row: after its last character that is not an
   * unstyled space (Ink trims those off a row's end, and the codes after them with them).
   */
  tail: number;
  /** Some style is still set at `tail`. */
  tailOpen: boolean;
}

// SGR state: one bit per attribute that has its own "off" code.
const FG = 1 << 7;
const BG = 1 << 8;
/** Codes that set an attribute (bold and dim share one "off"), and the codes that clear one. */
const SETS = new Map<number, number>([
  [1, 1],
  [2, 1],
  [3, 2],
  [4, 4],
  [5, 8],
  [7, 16],
  [8, 32],
  [9, 64],
  [53, 512],
]);
const CLEARS = new Map<number, number>([
  [22, 1],
  [23, 2],
  [24, 4],
  [25, 8],
  [27, 16],
  [28, 32],
  [29, 64],
  [55, 512],
  [39, FG],
  [49, BG],
]);

/** The state after one SGR's parameters, or -1 for a code this does not know. */
function applySgr(state: number, params: string): number {
  if (params === '') return 0;
  const p = params.split(';');
  for (let i = 0; i < p.length; i++) {
    const n = p[i] === '' ? 0 : Number(p[i]);
    const set = SETS.get(n);
    const clear = CLEARS.get(n);
    if (n === 0) state = 0;
    else if (set !== undefined) state |= set;
    else if (clear !== undefined) state &= ~clear;
    else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) state |= FG;
    else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) state |= BG;
    else if (n === 38 || n === 48) {
      // 38;5;n or 38;2;r;g;b (48 likewise): the colour's arguments must all be there.
      const args = p[i + 1] === '5' ? 2 : p[i + 1] === '2' ? 4 : -1;
      if (args < 0 || i + args >= p.length) return -1;
      for (let k = 1; k <= args; k++) if (!/^\d+$/.test(p[i + k]!)) return -1;
      state |= n === 38 ? FG : BG;
      i += args;
    } else return -1;
  }
  return state;
}

/** The width and end state of a plain line (see above), or null when it is not one. */
export function plainLine(line: string): PlainLine | null {
  let width = 0;
  let state = 0;
  let tail = 0;
  let tailState = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === 0x1b) {
      if (line.charCodeAt(i + 1) !== 0x5b) return null; // ESC [
      let j = i + 2;
      while (j < line.length) {
        const d = line.charCodeAt(j);
        if ((d >= 0x30 && d <= 0x39) || d === 0x3b) j++;
        else break;
      }
      if (line.charCodeAt(j) !== 0x6d) return null; // not an SGR (…m)
      state = applySgr(state, line.slice(i + 2, j));
      if (state < 0) return null;
      i = j;
    } else if (narrow(c)) {
      width++;
      if (c !== 0x20 || state !== 0) {
        tail = i + 1;
        tailState = state;
      }
    } else {
      return null;
    }
  }
  return { width, open: state !== 0, tail, tailOpen: tailState !== 0 };
}

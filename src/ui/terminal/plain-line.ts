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
  0x20, 0x7e, 0xa0, 0xac, 0xae, 0x2ff, 0x2010, 0x2029, 0x202f, 0x205f, 0x2070, 0x20cf, 0x20f1, 0x2319, 0x231c, 0x2328, 0x232b, 0x23e8,
  0x23f4, 0x25fc, 0x25ff, 0x25ff, 0x26a0, 0x26a0, 0x2713, 0x2718,
];

function narrow(c: number): boolean {
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

// SGR state, one bit per attribute that has its own "off" code.
const BOLD_DIM = 1;
const ITALIC = 2;
const UNDERLINE = 4;
const BLINK = 8;
const INVERSE = 16;
const HIDDEN = 32;
const STRIKE = 64;
const FG = 128;
const BG = 256;
const OVERLINE = 512;

/** The state after one SGR's parameters, or -1 for a code this does not know. */
function applySgr(state: number, params: string): number {
  if (params === '') return 0;
  const p = params.split(';');
  for (let i = 0; i < p.length; i++) {
    const n = p[i] === '' ? 0 : Number(p[i]);
    if (n === 0) state = 0;
    else if (n === 1 || n === 2) state |= BOLD_DIM;
    else if (n === 22) state &= ~BOLD_DIM;
    else if (n === 3) state |= ITALIC;
    else if (n === 23) state &= ~ITALIC;
    else if (n === 4) state |= UNDERLINE;
    else if (n === 24) state &= ~UNDERLINE;
    else if (n === 5) state |= BLINK;
    else if (n === 25) state &= ~BLINK;
    else if (n === 7) state |= INVERSE;
    else if (n === 27) state &= ~INVERSE;
    else if (n === 8) state |= HIDDEN;
    else if (n === 28) state &= ~HIDDEN;
    else if (n === 9) state |= STRIKE;
    else if (n === 29) state &= ~STRIKE;
    else if (n === 53) state |= OVERLINE;
    else if (n === 55) state &= ~OVERLINE;
    else if ((n >= 30 && n <= 37) || (n >= 90 && n <= 97)) state |= FG;
    else if (n === 39) state &= ~FG;
    else if ((n >= 40 && n <= 47) || (n >= 100 && n <= 107)) state |= BG;
    else if (n === 49) state &= ~BG;
    else if (n === 38 || n === 48) {
      const mode = p[i + 1];
      const skip = mode === '5' ? 2 : mode === '2' ? 4 : -1;
      if (skip < 0 || i + skip >= p.length) return -1;
      for (let k = 1; k <= skip; k++) if (!/^\d+$/.test(p[i + k]!)) return -1;
      state |= n === 38 ? FG : BG;
      i += skip;
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

/**
 * Terminal cell widths, truncation and wrapping for pane content. Pure. Text from agents is
 * sanitised first: ANSI sequences and control characters would move the cursor and break the
 * frame, tabs are expanded.
 */
import { stripControls, stripEscapes } from '../lib/escapes.js';
import { shortSpan } from '../lib/format.js';

// East Asian wide/fullwidth ranges and emoji: two cells.
const WIDE =
  /[\u1100-\u115f\u231a\u231b\u2329\u232a\u23e9-\u23ec\u23f0\u23f3\u25fd\u25fe\u2614\u2615\u2648-\u2653\u267f\u2693\u26a1\u26aa\u26ab\u26bd\u26be\u26c4\u26c5\u26ce\u26d4\u26ea\u26f2\u26f3\u26f5\u26fa\u26fd\u2705\u270a\u270b\u2728\u274c\u274e\u2753-\u2755\u2757\u2795-\u2797\u27b0\u27bf\u2b1b\u2b1c\u2b50\u2b55\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{1b2ff}\u{1f004}\u{1f0cf}\u{1f18e}\u{1f191}-\u{1f19a}\u{1f200}-\u{1f251}\u{1f300}-\u{1f320}\u{1f32d}-\u{1f335}\u{1f337}-\u{1f37c}\u{1f37e}-\u{1f393}\u{1f3a0}-\u{1f3ca}\u{1f3cf}-\u{1f3d3}\u{1f3e0}-\u{1f3f0}\u{1f3f4}\u{1f3f8}-\u{1f43e}\u{1f440}\u{1f442}-\u{1f4fc}\u{1f4ff}-\u{1f53d}\u{1f54b}-\u{1f54e}\u{1f550}-\u{1f567}\u{1f57a}\u{1f595}\u{1f596}\u{1f5a4}\u{1f5fb}-\u{1f64f}\u{1f680}-\u{1f6c5}\u{1f6cc}\u{1f6d0}-\u{1f6d2}\u{1f6d5}-\u{1f6d7}\u{1f6eb}\u{1f6ec}\u{1f6f4}-\u{1f6fc}\u{1f7e0}-\u{1f7eb}\u{1f90c}-\u{1f93a}\u{1f93c}-\u{1f945}\u{1f947}-\u{1f9ff}\u{1fa70}-\u{1faff}\u{20000}-\u{3fffd}]/u;
const ZERO = /[\p{Mn}\p{Me}\u200b-\u200f\u2060\ufe00-\ufe0f]/u;

/** Cells one code point takes. */
export function charWidth(ch: string): number {
  if (ZERO.test(ch)) return 0;
  return WIDE.test(ch) ? 2 : 1;
}

const NARROW_ONLY = /^[\x20-\x7e]*$/;

/** Cells a (sanitised) string takes. */
export function cellWidth(s: string): number {
  if (NARROW_ONLY.test(s)) return s.length;
  let w = 0;
  for (const ch of s) w += charWidth(ch);
  return w;
}

/**
 * What makes one emoji out of several: the joiner (👨‍👩‍👧), presentation selectors (❤️), skin tones
 * (👍🏽) and tag characters (subdivision flags). Terminals disagree on how wide such a sequence is
 * (tmux 3.3 draws 🏳️ and ❤️ one cell wide, 👍🏽 four; others one glyph of two; string-width says two),
 * so a border after one lands in a different column on each. Without them every piece is drawn on
 * its own, as wide as it is everywhere: 👨👩👧 is six cells for every terminal and for our measure.
 */
const JOINERS = /[\u200d\ufe0e\ufe0f\u{1f3fb}-\u{1f3ff}\u{e0020}-\u{e007f}]/gu;

/**
 * Strip escape sequences and control characters; tabs become spaces, CRLF/CR become LF; emoji
 * sequences are taken apart (JOINERS).
 */
export function sanitize(s: string): string {
  return stripControls(stripEscapes(s).replace(/\r\n?/g, '\n').replace(/\t/g, '  '), { keepNewlines: true }).replace(
    JOINERS,
    '',
  );
}

/** Cut to at most `width` cells, ending with `…` when cut. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (cellWidth(s) <= width) return s;
  let out = '';
  let w = 0;
  for (const ch of s) {
    const cw = charWidth(ch);
    if (w + cw > width - 1) break;
    out += ch;
    w += cw;
  }
  return `${out}…`;
}

/**
 * Cut as truncate, but at the end of a word when that costs little (a few cells: a quarter of the
 * room, 3 to 6; never before `keep` cells): "Run the whole suite…" rather than "Run the whole suite an…".
 */
export function truncateAtWord(s: string, width: number, keep = 0): string {
  const cut = truncate(s, width);
  if (cut === s || !cut.endsWith('…')) return cut;
  const body = cut.slice(0, -1);
  // Cut mid-word only: the character after the cut is not a space.
  if (/\s/.test(s.charAt(body.length))) return `${body.trimEnd()}…`;
  const space = body.lastIndexOf(' ');
  if (space <= keep || cellWidth(body.slice(space)) > Math.min(6, Math.max(3, Math.floor(width / 4)))) return cut;
  return `${body.slice(0, space).trimEnd()}…`;
}

/** Pad with spaces (or cut) to exactly `width` cells. */
export function fit(s: string, width: number): string {
  const t = truncate(s, width);
  return t + ' '.repeat(Math.max(0, width - cellWidth(t)));
}

/**
 * Wrap one logical line (no newlines) to `width` cells: at spaces when a word fits, hard breaks
 * inside words that are longer than a line. Always at least one (possibly empty) line.
 */
export function wrapLine(line: string, width: number): string[] {
  if (width <= 0) return [''];
  if (cellWidth(line) <= width) return [line];
  const out: string[] = [];
  let cur = '';
  let curW = 0;
  const pushWord = (word: string): void => {
    for (const ch of word) {
      const cw = charWidth(ch);
      if (curW + cw > width) {
        out.push(cur);
        cur = '';
        curW = 0;
      }
      cur += ch;
      curW += cw;
    }
  };
  for (const token of line.split(/(\s+)/)) {
    if (token === '') continue;
    const tw = cellWidth(token);
    if (/^\s+$/.test(token)) {
      if (curW + tw <= width) {
        cur += token;
        curW += tw;
      } else {
        out.push(cur.trimEnd());
        cur = '';
        curW = 0;
      }
      continue;
    }
    if (curW + tw <= width) {
      cur += token;
      curW += tw;
    } else if (tw <= width) {
      out.push(cur.trimEnd());
      cur = token;
      curW = tw;
    } else {
      pushWord(token);
    }
  }
  if (cur !== '' || out.length === 0) out.push(cur);
  return out;
}

/** Wrap text that may contain newlines. */
export function wrapText(text: string, width: number): string[] {
  return text.split('\n').flatMap((l) => wrapLine(l, width));
}

/** "3s", "4m", "2h", "5d": compact age. */
export const formatAge = shortSpan;

/** "950", "12k", "1.2M" */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 10_000) return `${(n / 1000).toFixed(1)}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

export function formatCost(usd: number): string {
  return usd >= 10 ? `$${usd.toFixed(0)}` : usd >= 0.995 ? `$${usd.toFixed(1)}` : `$${usd.toFixed(2)}`;
}

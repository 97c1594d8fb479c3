/**
 * Ink's per-text helpers with memory that stays bounded. Ink 6 remembers every text it has ever
 * measured (`measure-text.js`) or wrapped (`wrap-text.js`) in maps that only grow, and cleans every
 * text node's escape codes again on every frame (`sanitize-ansi.js`, unremembered). A dashboard
 * streaming text makes new texts every second, so Ink's maps grow for as long as it runs. The
 * bundle builds these three modules from the functions below (scripts/build.mjs), each keeping
 * two generations of what it was asked lately (memo.ts).
 *
 * test/unit/ink-text.test.ts holds them to Ink's own answers.
 */
import { TwoGenerations } from './memo.js';
import { plainLine } from './plain-line.js';
import widestLine from './text-width.js';

export interface TextSize {
  width: number;
  height: number;
}

const sizes = new TwoGenerations<TextSize>(2048);
const EMPTY: TextSize = Object.freeze({ width: 0, height: 0 });

/** `measure-text.js`: the widest line and the line count. */
export function measureText(text: string): TextSize {
  if (text.length === 0) return EMPTY;
  return sizes.get(text, () => Object.freeze({ width: widestLine(text), height: text.split('\n').length }));
}

type WrapAnsi = (text: string, columns: number, options: { trim: boolean; hard: boolean }) => string;
type Truncate = (text: string, columns: number, options: { position: 'start' | 'middle' | 'end' }) => string;

/** `wrap-text.js`, given the libraries Ink wraps and truncates with. */
export function wrapTextWith(
  wrapAnsi: WrapAnsi,
  truncate: Truncate,
): (text: string, maxWidth: number, wrapType: string) => string {
  const wrapped = new TwoGenerations<string>(2048);
  return (text, maxWidth, wrapType) =>
    wrapped.get(`${maxWidth}\u0000${wrapType}\u0000${text}`, () => {
      if (wrapType === 'wrap') return wrapAnsi(text, maxWidth, { trim: false, hard: true });
      if (wrapType.startsWith('truncate')) {
        const position = wrapType === 'truncate-middle' ? 'middle' : wrapType === 'truncate-start' ? 'start' : 'end';
        return truncate(text, maxWidth, { position });
      }
      return text;
    });
}

/**
 * `sanitize-ansi.js`, given Ink's own: a line of narrow characters and SGR codes (plain-line.ts)
 * has nothing to strip; any other text is asked of Ink's once while it is in use.
 */
export function sanitizeWith(sanitize: (text: string) => string): (text: string) => string {
  const clean = new TwoGenerations<string>(2048);
  return (text) => clean.get(text, (t) => (plainLine(t) ? t : sanitize(t)));
}

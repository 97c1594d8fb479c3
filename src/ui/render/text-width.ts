/**
 * Column widths of text, remembered across frames. string-width walks grapheme clusters with
 * Intl.Segmenter, and Ink asks for the widest line of every text node on every frame, unchanged
 * or not (render-node-to-output, measure-text); the bundle hands Ink this module in place of
 * `widest-line` (scripts/build.mjs), so only new text is measured.
 */
import stringWidth from 'string-width';
import { TwoGenerations } from './memo.js';
import { plainLine } from './plain-line.js';

const widths = new TwoGenerations<number>(4096);
const blocks = new TwoGenerations<number>(2048);

/** The width of one line in terminal columns (escape codes count zero). */
export const textWidth = (line: string): number => widths.get(line, (l) => plainLine(l)?.width ?? stringWidth(l));

/** The width of the widest line of `text`: `widest-line`'s contract. */
export default function widestLine(text: string): number {
  if (!text.includes('\n')) return textWidth(text);
  return blocks.get(text, () => {
    let w = 0;
    for (const line of text.split('\n')) w = Math.max(w, textWidth(line));
    return w;
  });
}

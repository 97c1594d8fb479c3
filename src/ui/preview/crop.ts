/**
 * Fitting a PTY session's screen into the preview pane. Pure.
 *
 * - Rows: the pane shows the rows that end with the lowest of the cursor and the last non-blank
 *   row (a CLI's prompt and status lines are at the bottom of its content), as many as fit.
 * - Columns: the left `width` cells of each row (a wider screen is cut, not wrapped, so the
 *   layout of the session's screen stays as it is).
 * - Colours: rows come with SGR sequences (the viewer's `ansiLines`) or as plain text (NO_COLOR).
 */
import { ESCAPE_OR_CONTROL_AT, isSgr, RESET_PEN } from '../../lib/escapes.js';
import { charWidth } from '../text.js';

export interface ScreenLike {
  lines: readonly string[];
  ansiLines: readonly string[];
  cursor: { x: number; y: number };
}

/** The first and one-past-last screen row to show in `height` rows. */
export function previewRows(
  screen: Pick<ScreenLike, 'lines' | 'cursor'>,
  height: number,
): { start: number; end: number } {
  let last = -1;
  for (let y = screen.lines.length - 1; y >= 0; y--) {
    if (screen.lines[y]!.trim() !== '') {
      last = y;
      break;
    }
  }
  const end = Math.min(screen.lines.length, Math.max(last, Math.min(screen.cursor.y, screen.lines.length - 1)) + 1);
  return { start: Math.max(0, end - Math.max(0, height)), end };
}

// SGR only: the viewer's rows carry nothing else (and anything else is dropped).
const ESCAPE = ESCAPE_OR_CONTROL_AT;

/** The first `width` cells of a row, SGR kept (and reset at the end when any was used). */
export function cropRow(row: string, width: number): string {
  let out = '';
  let used = 0;
  let styled = false;
  let i = 0;
  while (i < row.length) {
    if (row.charCodeAt(i) < 0x20 || row.charCodeAt(i) === 0x7f) {
      ESCAPE.lastIndex = i;
      const m = ESCAPE.exec(row);
      const len = m ? m[0].length : 1;
      if (m && isSgr(m[0])) {
        out += m[0];
        styled = true;
      }
      i += len;
      continue;
    }
    const cp = row.codePointAt(i)!;
    const ch = String.fromCodePoint(cp);
    const w = charWidth(ch);
    if (used + w > width) break;
    out += ch;
    used += w;
    i += ch.length;
  }
  return styled ? out + RESET_PEN : out;
}

/** The rows to draw: `height` of them at most, each at most `width` cells. */
export function previewLines(screen: ScreenLike, width: number, height: number, colour: boolean): string[] {
  const { start, end } = previewRows(screen, height);
  const src = colour ? screen.ansiLines : screen.lines;
  const out: string[] = [];
  for (let y = start; y < end; y++) out.push(cropRow(src[y] ?? '', width));
  return out;
}

/**
 * Render an @xterm/headless buffer back to ANSI (our stand-in for @xterm/addon-serialize, which is
 * not a dependency): cells with colours (16/256/true colour) and attributes, wide characters, the
 * cursor, and the modes a CLI expects its terminal to keep (cursor keys, keypad, bracketed paste,
 * mouse, focus, scroll region, title).
 *
 * The result paints the session's screen on a terminal of the same size:
 * - normal buffer (claude's TUI): up to `history` lines of scrollback then the screen, printed as
 *   lines from the bottom row, so the person's shell scrolls up into their scrollback (as if the
 *   session had been printing there all along) and the screen ends up exactly in the viewport.
 *   A soft-wrapped line is printed the way it was written — full rows, no line break, the terminal
 *   wraps it — so the person's terminal knows it is one line and re-wraps it when its width
 *   changes (a re-attach at another width, a resize while attached);
 * - alternate buffer (full-screen CLIs): enter the alternate screen, clear it, paint each row.
 */
import type xterm from '@xterm/headless';
import { CLEAR_SCREEN, CSI, ENTER_ALT, HIDE_CURSOR, SHOW_CURSOR, titleSequence } from '../lib/escapes.js';
import { look as sgr, type Cell } from './cells.js';

type Terminal = InstanceType<typeof xterm.Terminal>;
type Buffer = Terminal['buffer']['active'];

export interface RenderState {
  /** DEC private modes not in `term.modes` (25 cursor, 1004 focus, 1005/1006/1015 mouse encodings). */
  decModes: Map<number, boolean>;
  scrollRegion: { top: number; bottom: number } | null;
  title: string | null;
}

function blank(cell: Cell): boolean {
  const ch = cell.getChars();
  return (
    (ch === '' || ch === ' ') &&
    cell.isBgDefault() &&
    !cell.isInverse() &&
    !cell.isUnderline() &&
    !cell.isStrikethrough()
  );
}

/**
 * One buffer line as text, with SGR when `ansi` (ends in a reset when styled). Trailing blanks are
 * dropped unless `full`: a row that continues on the next one is printed to its last column.
 */
export function renderLine(buf: Buffer, y: number, cols: number, ansi: boolean, scratch?: Cell, full = false): string {
  const line = buf.getLine(y);
  if (!line) return '';
  if (!ansi) return line.translateToString(!full);
  let last = full ? Math.min(cols, line.length) - 1 : -1;
  for (let x = Math.min(cols, line.length) - 1; x >= 0 && !full; x--) {
    const cell = line.getCell(x, scratch);
    if (cell && !blank(cell)) {
      last = x + (cell.getWidth() === 2 ? 1 : 0);
      break;
    }
  }
  let out = '';
  let pen = '0';
  for (let x = 0; x <= last; x++) {
    const cell = line.getCell(x, scratch);
    if (!cell) break;
    const w = cell.getWidth();
    if (w === 0) continue; // second half of a wide character
    const look = sgr(cell);
    if (look !== pen) {
      out += `${CSI}${look}m`;
      pen = look;
    }
    out += cell.getChars() || ' ';
  }
  return pen === '0' ? out : `${out}${CSI}0m`;
}

/** The visible lines. */
export function renderLines(term: Terminal, ansi: boolean): string[] {
  const buf = term.buffer.active;
  const out: string[] = [];
  for (let y = buf.viewportY; y < buf.viewportY + term.rows; y++) out.push(renderLine(buf, y, term.cols, ansi));
  return out;
}

const MOUSE: Record<string, number | undefined> = { x10: 9, vt200: 1000, drag: 1002, any: 1003 };

/** Modes to set after painting, so keys, paste and mouse reach the CLI the way it asked for them. */
function modes(term: Terminal, state: RenderState): string {
  const m = term.modes;
  let s = '';
  if (m.applicationCursorKeysMode) s += `${CSI}?1h`;
  if (m.applicationKeypadMode) s += '\x1b=';
  if (m.bracketedPasteMode) s += `${CSI}?2004h`;
  if (m.sendFocusMode) s += `${CSI}?1004h`;
  if (m.insertMode) s += `${CSI}4h`;
  if (!m.wraparoundMode) s += `${CSI}?7l`;
  const mouse = MOUSE[m.mouseTrackingMode];
  if (mouse) s += `${CSI}?${mouse}h`;
  for (const enc of [1005, 1006, 1015]) if (state.decModes.get(enc)) s += `${CSI}?${enc}h`;
  return s;
}

export function renderScreen(term: Terminal, state: RenderState, opts: { history?: number } = {}): string {
  const buf = term.buffer.active;
  const { rows, cols } = term;
  const scratch = buf.getNullCell();
  let out = `${CSI}0m`;
  if (state.title !== null) out += titleSequence(state.title);
  if (buf.type === 'alternate') {
    out += ENTER_ALT + CLEAR_SCREEN;
    for (let y = 0; y < rows; y++) out += `${CSI}${y + 1};1H${renderLine(buf, buf.baseY + y, cols, true, scratch)}`;
  } else {
    const from = Math.max(0, buf.baseY - Math.max(0, opts.history ?? 0));
    out += `${CSI}${rows};1H`;
    const end = buf.baseY + rows;
    for (let y = from; y < end; y++) {
      const continues = y + 1 < end && buf.getLine(y + 1)?.isWrapped === true;
      const continuation = y > from && buf.getLine(y)?.isWrapped === true;
      out += `${continuation ? '' : '\r\n'}${renderLine(buf, y, cols, true, scratch, continues)}`;
    }
  }
  if (state.scrollRegion) out += `${CSI}${state.scrollRegion.top};${state.scrollRegion.bottom || rows}r`;
  out += `${CSI}${buf.cursorY + 1};${buf.cursorX + 1}H`;
  out += modes(term, state);
  out += state.decModes.get(25) === false ? HIDE_CURSOR : SHOW_CURSOR;
  return out;
}

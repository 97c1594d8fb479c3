/**
 * A headless terminal's rows as cells, for drawing them elsewhere a row at a time (the dashboard's
 * preview). Two things here:
 *
 * - `readRow`: the first `width` cells of a row, each as its text and its look (the SGR parameters
 *   from a reset, "0" for plain), so a caller can diff two rows cell by cell and write only spans.
 * - `rowStamp`: a cheap "did this row change" check. xterm keeps each row as a Uint32Array (three
 *   words per cell: content, foreground, background); comparing a copy of it tells an unchanged
 *   row without building its text. That array is xterm's internal (`BufferLine._data`), so the
 *   stamp is best effort: when it is not there (another xterm), or the row holds combined
 *   characters (their text lives outside the array), the stamp is null and the row is read again.
 */
import type xterm from '@xterm/headless';

type Terminal = InstanceType<typeof xterm.Terminal>;
export type Buffer = Terminal['buffer']['active'];
export type Cell = NonNullable<ReturnType<NonNullable<ReturnType<Buffer['getLine']>>['getCell']>>;

export interface RowCells {
  /** One entry per cell: its text (' ' when empty; '' for the second half of a wide character). */
  chars: string[];
  /** One entry per cell: SGR parameters from a reset ("0" plain). */
  looks: string[];
}

export const PLAIN = '0';

function colour(fg: boolean, cell: Cell): string {
  if (fg ? cell.isFgDefault() : cell.isBgDefault()) return '';
  const c = fg ? cell.getFgColor() : cell.getBgColor();
  if (fg ? cell.isFgRGB() : cell.isBgRGB()) return `;${fg ? 38 : 48};2;${(c >> 16) & 255};${(c >> 8) & 255};${c & 255}`;
  if (c < 8) return `;${(fg ? 30 : 40) + c}`;
  if (c < 16) return `;${(fg ? 90 : 100) + c - 8}`;
  return `;${fg ? 38 : 48};5;${c}`;
}

/** A cell's look as SGR parameters from a reset ("0" plain); render.ts uses it too. */
export function look(cell: Cell): string {
  let s = PLAIN;
  if (cell.isBold()) s += ';1';
  if (cell.isDim()) s += ';2';
  if (cell.isItalic()) s += ';3';
  if (cell.isUnderline()) s += ';4';
  if (cell.isBlink()) s += ';5';
  if (cell.isInverse()) s += ';7';
  if (cell.isInvisible()) s += ';8';
  if (cell.isStrikethrough()) s += ';9';
  if (cell.isOverline()) s += ';53';
  return s + colour(true, cell) + colour(false, cell);
}

/**
 * Blank rows are copied from one template per width: a copy is quick, and its arrays are packed
 * like every other row's (V8 keeps arrays with holes, as `Array(n).fill()` makes, apart, and code
 * comparing rows of both kinds would be compiled again and again for each).
 */
const templates = new Map<number, RowCells>();

/** A blank row of `width` cells. */
export function blankRow(width: number): RowCells {
  let t = templates.get(width);
  if (!t) {
    t = { chars: [], looks: [] };
    for (let i = 0; i < width; i++) {
      t.chars.push(' ');
      t.looks.push(PLAIN);
    }
    if (templates.size > 16) templates.clear();
    templates.set(width, t);
  }
  return { chars: t.chars.slice(), looks: t.looks.slice() };
}

/** The first `width` cells of buffer row `y` (a wide character cut by the edge becomes a blank). */
export function readRow(buf: Buffer, y: number, width: number, withColour: boolean, scratch?: Cell): RowCells {
  const row = blankRow(width);
  const line = buf.getLine(y);
  if (!line) return row;
  const n = Math.min(width, line.length);
  for (let x = 0; x < n; x++) {
    const cell = line.getCell(x, scratch);
    if (!cell) break;
    const w = cell.getWidth();
    if (w === 0) {
      row.chars[x] = '';
      row.looks[x] = row.looks[x - 1] ?? PLAIN;
      continue;
    }
    if (w === 2 && x + 1 >= width) break; // half a wide character does not fit: leave a blank
    row.chars[x] = cell.getChars() || ' ';
    // Most cells of a CLI's screen are unstyled (no colour, no attribute): no look to build.
    if (withColour && !cell.isAttributeDefault()) row.looks[x] = look(cell);
  }
  return row;
}

/** The row's text with trailing blanks dropped (no colours). */
export function rowText(buf: Buffer, y: number): string {
  return buf.getLine(y)?.translateToString(true) ?? '';
}

interface InternalLine {
  _line?: { _data?: unknown; _combined?: Record<string, unknown> };
}

/** The row's raw cells (read-only view: copy it to keep it), or null when unavailable (see above). */
export function rowStamp(buf: Buffer, y: number): Uint32Array | null {
  const line = buf.getLine(y) as unknown as InternalLine | undefined;
  const inner = line?._line;
  const data = inner?._data;
  if (!(data instanceof Uint32Array)) return null;
  if (inner?._combined && Object.keys(inner._combined).length > 0) return null;
  return data;
}

export function sameStamp(a: Uint32Array | null, b: Uint32Array | null): boolean {
  if (!a || !b || a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * What a PTY viewer shows, as its readers take it: the whole screen at once (PtySnapshot) or a row at
 * a time (ScreenGrid). Its own file so that the viewer and the grids that serve it (remote-grid.ts)
 * both depend on it rather than on each other.
 */
import type { RowCells } from '../ptyd/cells.js';

export interface PtySnapshot {
  cols: number;
  rows: number;
  /** Visible lines, plain text, trailing blanks trimmed. */
  lines: string[];
  /** The same lines with colours/attributes as SGR sequences (each styled line ends in a reset). */
  ansiLines: string[];
  cursor: { x: number; y: number };
  bufferType: 'normal' | 'alternate';
}

/**
 * The live screen, read a row at a time without copying it all (the dashboard's preview reads only
 * the rows it shows, and only those that changed: see `stamp`). Valid until the viewer closes;
 * rows are screen rows (0 = top).
 */
export interface ScreenGrid {
  readonly cols: number;
  readonly rows: number;
  readonly cursor: { x: number; y: number };
  readonly bufferType: 'normal' | 'alternate';
  /** The row's raw cells (unchanged array ⇒ unchanged row; copy to keep), or null: read it again. */
  stamp(y: number): Uint32Array | null;
  /**
   * A number the row keeps while its cells do, wherever it moves (absent: rows are known by place
   * only). A reader keeps what it read of a row by this, so a row that scrolled is not read again.
   */
  rowId?(y: number): number | null;
  /** The row as plain text, trailing blanks dropped. */
  text(y: number): string;
  /** The row's first `width` cells. */
  cells(y: number, width: number, colour: boolean): RowCells;
}

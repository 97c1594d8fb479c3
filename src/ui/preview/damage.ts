/**
 * Damage tracking for the preview: which rows of a PTY session's screen the pane shows (the same
 * rule as crop.ts: the bottom of its content), as cells, re-reading only the screen rows whose raw
 * cells changed since the last frame. A screen row that did not change costs one comparison of
 * its cell array, not a new string; on a grid that knows its rows wherever they move (ScreenGrid
 * rowId: the host's rows), a row that scrolled is the same cells object at its new place, so the
 * compositor knows it without reading it either.
 */
import { sameStamp, type RowCells } from '../../ptyd/cells.js';
import type { ScreenGrid } from '../../pty/viewer.js';
import { previewRows } from './crop.js';

interface CachedRow {
  /** A copy of the row's raw cells when it was read (null: always read again). */
  stamp: Uint32Array | null;
  cells: RowCells;
}

export class PreviewFrames {
  private cache: (CachedRow | undefined)[] = [];
  /** Rows read from a grid with row ids, by id (the rows shown in the last frame). */
  private byId = new Map<number, RowCells>();
  /** The map the next frame fills (the two swap: a frame allocates no map). */
  private spare = new Map<number, RowCells>();
  private shape = { cols: -1, rows: -1, width: -1, colour: false, bufferType: '' };
  /** Each frame's rows' texts as lastRows reads them (kept: a frame allocates no array). */
  private texts: string[] = [];
  /** Screen rows read (not served from the cache) since created: for tests and benches. */
  reads = 0;

  /** The pane's rows, top to bottom (fewer than `height` when the screen has fewer to show). */
  frame(grid: ScreenGrid, width: number, height: number, colour: boolean): RowCells[] {
    const sh = this.shape;
    if (
      grid.cols !== sh.cols ||
      grid.rows !== sh.rows ||
      width !== sh.width ||
      colour !== sh.colour ||
      grid.bufferType !== sh.bufferType
    ) {
      this.shape = { cols: grid.cols, rows: grid.rows, width, colour, bufferType: grid.bufferType };
      this.cache = [];
      this.byId = new Map();
    }
    const { start, end } = previewRows(lastRows(grid, this.texts), height);
    const out: RowCells[] = [];
    if (grid.rowId) {
      const kept = this.spare;
      kept.clear();
      for (let y = start; y < end; y++) {
        const id = grid.rowId(y);
        let cells = id === null ? undefined : this.byId.get(id);
        if (!cells) {
          this.reads++;
          cells = grid.cells(y, width, colour);
        }
        if (id !== null) kept.set(id, cells);
        out.push(cells);
      }
      this.spare = this.byId;
      this.byId = kept;
      return out;
    }
    for (let y = start; y < end; y++) out.push(this.row(grid, y, width, colour));
    return out;
  }

  private row(grid: ScreenGrid, y: number, width: number, colour: boolean): RowCells {
    const stamp = grid.stamp(y);
    const hit = this.cache[y];
    if (hit && sameStamp(hit.stamp, stamp)) return hit.cells;
    this.reads++;
    const cells = grid.cells(y, width, colour);
    this.cache[y] = { stamp: stamp ? stamp.slice() : null, cells };
    return cells;
  }
}

/**
 * What previewRows needs: the cursor and which rows are blank. Only the rows from the bottom up to
 * the first non-blank one are read as text (the rest are reported non-blank without reading).
 */
function lastRows(grid: ScreenGrid, lines: string[]): { lines: string[]; cursor: { x: number; y: number } } {
  lines.length = grid.rows;
  lines.fill('x');
  for (let y = grid.rows - 1; y >= 0; y--) {
    const t = grid.text(y);
    lines[y] = t;
    if (t.trim() !== '') break;
  }
  return { lines, cursor: grid.cursor };
}

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
  private shape = '';
  /** Screen rows read (not served from the cache) since created: for tests and benches. */
  reads = 0;

  /** The pane's rows, top to bottom (fewer than `height` when the screen has fewer to show). */
  frame(grid: ScreenGrid, width: number, height: number, colour: boolean): RowCells[] {
    const shape = `${grid.cols}x${grid.rows}:${width}:${colour ? 1 : 0}:${grid.bufferType}`;
    if (shape !== this.shape) {
      this.shape = shape;
      this.cache = [];
      this.byId = new Map();
    }
    const { start, end } = previewRows(lastRows(grid), height);
    const out: RowCells[] = [];
    if (grid.rowId) {
      const kept = new Map<number, RowCells>();
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
function lastRows(grid: ScreenGrid): { lines: string[]; cursor: { x: number; y: number } } {
  const lines = new Array<string>(grid.rows).fill('x');
  for (let y = grid.rows - 1; y >= 0; y--) {
    const t = grid.text(y);
    lines[y] = t;
    if (t.trim() !== '') break;
  }
  return { lines, cursor: grid.cursor };
}

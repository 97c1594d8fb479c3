/**
 * Damage tracking for the preview: which rows of a PTY session's screen the pane shows (the same
 * rule as crop.ts: the bottom of its content), as cells, re-reading only the screen rows whose raw
 * cells changed since the last frame. A screen row that did not change costs one comparison of
 * its cell array, not a new string.
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
  private shape = '';
  /** Screen rows read (not served from the cache) since created: for tests and benches. */
  reads = 0;

  /** The pane's rows, top to bottom (fewer than `height` when the screen has fewer to show). */
  frame(grid: ScreenGrid, width: number, height: number, colour: boolean): RowCells[] {
    const shape = `${grid.cols}x${grid.rows}:${width}:${colour ? 1 : 0}:${grid.bufferType}`;
    if (shape !== this.shape) {
      this.shape = shape;
      this.cache = [];
    }
    const { start, end } = previewRows(lastRows(grid), height);
    const out: RowCells[] = [];
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

/**
 * A session's screen as its PTY host sends it to a grid viewer (ptyd/framing.ts `rows` frames): rows of
 * cells, kept as received. It serves the dashboard's preview the way a local headless terminal
 * would (ScreenGrid), without one: the host already parses the session's output.
 */
import { blankRow, PLAIN, type RowCells } from '../ptyd/cells.js';
import type { GridMove, GridRows } from '../ptyd/framing.js';
import { applyMove } from '../ptyd/grid-moves.js';
import type { PtySnapshot, ScreenGrid } from './screen-grid.js';

export class RemoteGrid implements ScreenGrid {
  cols: number;
  rows: number;
  cursor = { x: 0, y: 0 };
  bufferType: 'normal' | 'alternate' = 'normal';
  private grid: RowCells[] = [];
  /** Each row's text, read when first asked (null: not read since it changed). */
  private texts: (string | null)[] = [];
  /** Per row, a number that changes whenever the row does (ScreenGrid.stamp). */
  private versions: Uint32Array[] = [];
  private seq = 0;

  constructor(cols: number, rows: number) {
    this.cols = cols;
    this.rows = rows;
    this.reset();
  }

  apply(m: GridRows): void {
    if (m.full || m.cols !== this.cols || m.rows !== this.rows) {
      this.cols = m.cols;
      this.rows = m.rows;
      this.reset();
    }
    this.cursor = { x: m.cursor.x, y: m.cursor.y };
    this.bufferType = m.bufferType;
    for (const mv of m.moves ?? []) this.move(mv);
    for (const [y, chars, runs] of m.changed) {
      if (y < 0 || y >= this.rows) continue;
      const looks: string[] = [];
      for (let i = 0; i + 1 < runs.length; i += 2) {
        const look = String(runs[i]);
        for (let n = Number(runs[i + 1]); n > 0; n--) looks.push(look);
      }
      this.grid[y] = { chars, looks };
      this.texts[y] = null;
      this.versions[y] = Uint32Array.of(++this.seq);
    }
  }

  /** Rows moved up or down: each keeps its cells and its stamp (a reader's copy of it is still good). */
  private move(m: GridMove): void {
    this.grid = applyMove(this.grid, m, () => blankRow(this.cols));
    this.texts = applyMove(this.texts, m, () => null);
    this.versions = applyMove(this.versions, m, () => Uint32Array.of(++this.seq));
  }

  rowId(y: number): number | null {
    return this.versions[y]?.[0] ?? null;
  }

  stamp(y: number): Uint32Array | null {
    return this.versions[y] ?? null;
  }

  text(y: number): string {
    const had = this.texts[y];
    if (had != null) return had;
    const row = this.grid[y];
    const t = row ? row.chars.join('').trimEnd() : '';
    this.texts[y] = t;
    return t;
  }

  cells(y: number, width: number, colour: boolean): RowCells {
    const row = this.grid[y];
    const out = blankRow(width);
    if (!row) return out;
    const n = Math.min(width, row.chars.length);
    for (let x = 0; x < n; x++) {
      out.chars[x] = row.chars[x] ?? ' ';
      if (colour) out.looks[x] = row.looks[x] ?? PLAIN;
    }
    // A wide character cut by the edge becomes a blank (as ptyd/cells.ts readRow does).
    if (n > 0 && n === width && row.chars[n] === '') {
      out.chars[n - 1] = ' ';
      out.looks[n - 1] = PLAIN;
    }
    return out;
  }

  /** The whole screen as PtySnapshot lines (plain, and with SGR ending in a reset when styled). */
  snapshot(): PtySnapshot {
    const lines: string[] = [];
    const ansiLines: string[] = [];
    for (let y = 0; y < this.rows; y++) {
      lines.push(this.text(y));
      ansiLines.push(ansiOf(this.grid[y]));
    }
    return {
      cols: this.cols,
      rows: this.rows,
      lines,
      ansiLines,
      cursor: { ...this.cursor },
      bufferType: this.bufferType,
    };
  }

  private reset(): void {
    this.grid = Array.from({ length: this.rows }, () => blankRow(this.cols));
    this.texts = [];
    this.versions = Array.from({ length: this.rows }, () => Uint32Array.of(++this.seq));
  }
}

/** A row with SGR, trailing unstyled blanks dropped. */
function ansiOf(row: RowCells | undefined): string {
  if (!row) return '';
  let last = row.chars.length - 1;
  while (last >= 0 && (row.chars[last] === ' ' || row.chars[last] === '') && row.looks[last] === PLAIN) last--;
  let out = '';
  let pen = PLAIN;
  for (let x = 0; x <= last; x++) {
    const look = row.looks[x] ?? PLAIN;
    if (look !== pen) {
      out += `\x1b[${look}m`;
      pen = look;
    }
    out += row.chars[x] ?? ' ';
  }
  return pen === PLAIN ? out : `${out}\x1b[0m`;
}

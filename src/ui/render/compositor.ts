/**
 * The dashboard's screen, drawn the way a terminal multiplexer draws its panes: one model of what
 * the terminal shows, cell by cell, and each change written as the cells that differ.
 *
 * Layers make a frame: Ink's frame (its lines, from InkOutput) and overlays drawn over it where
 * Ink leaves a pane's inside blank (a PTY session's screen, preview-painter.ts; the followed log,
 * log-painter.ts). A layer changing marks the rows it touches; the next flush builds those rows
 * from the layers and draws them over what the terminal shows (row-diff.ts). When most of them are the
 * rows on the screen moved up or down (a scrolling log or session), the terminal scrolls them
 * itself first (scroll-plan.ts). Each flush is one write, wrapped in synchronized-output marks
 * (terminals that know them show it at once; the rest ignore them).
 *
 * A flush runs on the microtask after the change, so everything one React commit does lands in
 * one write: Ink writes its frame while React commits, before the layout effects that place the
 * overlay for that frame (a dialog taking the preview's place is drawn without the preview).
 *
 * The frame starts at the top of the alternate screen and is shorter than it, so it never
 * scrolls; after a flush the cursor is where Ink leaves it, at the start of the row below.
 */
import { blankRow, PLAIN, type RowCells } from '../../ptyd/cells.js';
import { parseLineCells } from './line-cells.js';
import { drawRow, rowCost, type PenState } from './row-diff.js';
import { applyScroll, planScroll, scrollText } from './scroll-plan.js';

export interface OverlayRegion {
  /** Top-left cell, 0-based. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** Cells drawn over Ink's frame in a region (its rows, top to bottom; fewer than the height leave Ink's). */
export interface Overlay {
  readonly region: OverlayRegion | null;
  rows(): readonly RowCells[];
}

/** An overlay as the last flush drew it. */
interface Placed {
  overlay: Overlay;
  region: OverlayRegion | null;
  rows: readonly RowCells[];
}

const BSU = '\x1b[?2026h';
const ESU = '\x1b[?2026l';
/** Rows changed in one flush before a scroll is looked for. */
const SCROLL_MIN_ROWS = 3;

export class Compositor {
  /** What the terminal shows, row by row; null: unknown (the next flush draws every row). */
  private shown: RowCells[] | null = null;
  private lines: readonly string[] | null = null;
  private dirty = new Set<number>();
  private overlays: Placed[] = [];
  private pending = false;
  /** Bytes and writes so far, rows scrolled by the terminal, for tests and benches. */
  bytes = 0;
  writes = 0;
  scrolls = 0;

  constructor(
    private readonly write: (s: string) => void,
    private readonly columns: () => number,
  ) {}

  /** Draw this overlay over the frame from now on (later overlays over earlier ones). */
  addOverlay(o: Overlay): void {
    this.overlays.push({ overlay: o, region: null, rows: [] });
    this.changed();
  }

  /** Ink's new frame, line by line. */
  frame(lines: readonly string[]): void {
    const prev = this.lines;
    for (let y = 0; y < Math.max(lines.length, prev?.length ?? 0); y++)
      if (!prev || prev[y] !== lines[y]) this.dirty.add(y);
    this.lines = lines;
    this.changed();
  }

  /** The overlay's place or rows changed: draw it on the next flush. */
  changed(): void {
    if (this.pending) return;
    this.pending = true;
    queueMicrotask(() => {
      if (this.pending) this.flush();
    });
  }

  /** The terminal was cleared (or drawn on by someone else): nothing is drawn until Ink's next frame, then all of it. */
  invalidate(): void {
    this.shown = null;
    this.lines = null;
    this.dirty.clear();
  }

  /** Write what is pending now (before something else is written to the terminal). */
  flushNow(): void {
    if (this.pending) this.flush();
  }

  /** Draw what changed since the last flush. */
  flush(): void {
    this.pending = false;
    const lines = this.lines;
    if (!lines) return;
    const width = this.columns();
    const rows = Math.max(lines.length, this.shown?.length ?? 0);
    this.touchOverlays(rows);
    const shown = this.shown;
    if (shown && (shown.length !== rows || shown.some((r) => r.chars.length !== width))) return this.redraw(width);
    if (!shown) return this.redraw(width);
    if (this.dirty.size === 0) return;
    const next = [...shown];
    for (const y of this.dirty) next[y] = this.rowAt(y, width);
    this.dirty.clear();
    const base = next.map((r, y) => rowCost(shown[y]!, r));
    const changedRows = base.reduce((n, c) => n + (c > 0 ? 1 : 0), 0);
    if (changedRows === 0) return;
    const plan = changedRows >= SCROLL_MIN_ROWS ? planScroll(shown, next, base) : null;
    const from = plan ? applyScroll(shown, plan, width) : shown;
    const pen: PenState = { look: PLAIN };
    let out = plan ? scrollText(plan) : '';
    for (let y = 0; y < rows; y++) out += drawRow(from[y]!, next[y]!, y, pen);
    if (plan) this.scrolls++;
    this.shown = next;
    this.emit(out, pen, lines.length);
  }

  /** Every row, erased and written (the screen is unknown or changed size). */
  private redraw(width: number): void {
    const lines = this.lines!;
    const next: RowCells[] = [];
    const pen: PenState = { look: PLAIN };
    let out = '';
    for (let y = 0; y < lines.length; y++) {
      const row = this.rowAt(y, width);
      next.push(row);
      out += drawRow(null, row, y, pen);
    }
    out += `\x1b[${lines.length + 1};1H\x1b[J`; // below the frame: whatever was there goes
    this.dirty.clear();
    this.shown = next;
    this.emit(out, pen, lines.length);
  }

  private emit(out: string, pen: PenState, frameRows: number): void {
    if (!out) return;
    if (pen.look !== PLAIN) out += '\x1b[0m';
    const s = `${BSU}${out}\x1b[${frameRows + 1};1H${ESU}`;
    this.bytes += Buffer.byteLength(s);
    this.writes++;
    this.write(s);
  }

  /** Take each overlay's place and rows now; mark the rows where they changed. */
  private touchOverlays(rows: number): void {
    for (const p of this.overlays) {
      const r = p.overlay.region;
      const region = r ? { x: r.x, y: r.y, width: r.width, height: r.height } : null;
      const cells = region ? p.overlay.rows() : [];
      const was = p.region;
      const moved =
        !was || !region
          ? was !== region
          : was.x !== region.x || was.y !== region.y || was.width !== region.width || was.height !== region.height;
      if (moved) {
        if (was) for (let i = 0; i < was.height; i++) this.dirty.add(was.y + i);
        if (region) for (let i = 0; i < region.height; i++) this.dirty.add(region.y + i);
      } else if (region) {
        const n = Math.max(cells.length, p.rows.length);
        for (let i = 0; i < n; i++) if (cells[i] !== p.rows[i]) this.dirty.add(region.y + i);
      }
      p.region = region;
      p.rows = cells;
    }
    for (const y of this.dirty) if (y >= rows) this.dirty.delete(y);
  }

  /** Row y as the layers make it: Ink's frame, each overlay over it. */
  private rowAt(y: number, width: number): RowCells {
    const line = this.lines![y];
    const ink = line === undefined ? blankRow(width) : parseLineCells(line, width);
    let row = ink;
    for (const p of this.overlays) {
      const r = p.region;
      const over = r && y >= r.y && y < r.y + r.height ? p.rows[y - r.y] : undefined;
      if (!r || !over) continue;
      if (row === ink) row = { chars: ink.chars.slice(), looks: ink.looks.slice() };
      const n = Math.min(over.chars.length, r.width, width - r.x);
      for (let i = 0; i < n; i++) {
        row.chars[r.x + i] = over.chars[i]!;
        row.looks[r.x + i] = over.looks[i]!;
      }
      // A wide character of the frame cut by the overlay's edge is gone (as on a terminal).
      for (const at of n > 0 ? [r.x - 1, r.x + n] : []) {
        if (at < 0 || at >= width || ink.chars[at === r.x - 1 ? r.x : at] !== '') continue;
        row.chars[at] = ' ';
        row.looks[at] = PLAIN;
      }
    }
    return row;
  }
}

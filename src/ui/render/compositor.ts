/**
 * The dashboard's screen, drawn the way a terminal multiplexer draws its panes: one model of what
 * the terminal shows, cell by cell, and each change written as the cells that differ.
 *
 * Layers make a frame: Ink's frame (its lines, from InkOutput) and overlays drawn over it where
 * Ink leaves a pane's inside blank (a PTY session's screen, preview-painter.ts; the followed log,
 * log-painter.ts). Each row is known by what it is made of: its line of Ink's frame and the overlay
 * rows over it (the same objects for as long as they do not change). A row made of the same as the
 * row on the screen is left alone without reading a cell; the others are built from their layers
 * and drawn over what the terminal shows, the cells that differ (row-diff.ts). When rows are the
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
import { blankCost, drawRow, rowCost, type PenState } from './row-diff.js';
import { applyScroll, MAX_SHIFT, planScroll, scrollText, type ScrollCosts, type ScrollPlan } from './scroll-plan.js';
import { uiStats } from './ui-stats.js';

export interface OverlayRegion {
  /** Top-left cell, 0-based. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/**
 * Cells drawn over Ink's frame in a region (its rows, top to bottom; fewer than the height, or a
 * row left undefined, leave Ink's). `ink(y)` is Ink's row y as cells, for an overlay drawn in
 * Ink's looks (clock-painter.ts).
 */
export interface Overlay {
  readonly region: OverlayRegion | null;
  rows(ink: (y: number) => RowCells): readonly (RowCells | undefined)[];
  /** Ink's next frame came (an overlay tied to what Ink drew follows it). */
  frame?(): void;
}

/** An overlay as the coming flush draws it. */
interface Placed {
  overlay: Overlay;
  region: OverlayRegion | null;
  rows: readonly (RowCells | undefined)[];
}

/** What a row is made of: its line of Ink's frame, and each overlay's row over it (with its column). */
interface Source {
  line: string | undefined;
  overs: readonly (readonly [number, RowCells] | undefined)[];
}

/** A row the terminal blanked (brought in by a scroll): made of nothing a frame has. */
// (its overs array made like every other row's: an empty literal is an array of another kind to V8)
const BLANK: Source = { line: '\u0000', overs: [undefined].slice(0, 0) };

function sameSource(a: Source, b: Source): boolean {
  if (a === b) return true;
  if (a.line !== b.line || a.overs.length !== b.overs.length) return false;
  for (let i = 0; i < a.overs.length; i++) {
    const x = a.overs[i];
    const y = b.overs[i];
    if (x !== y && (!x || !y || x[0] !== y[0] || x[1] !== y[1])) return false;
  }
  return true;
}

interface Shown {
  rows: RowCells[];
  sources: Source[];
  width: number;
}

/**
 * The rows a flush draws, built only when needed (a row made of what the screen's row is made of
 * is the screen's row), and their costs for planning a scroll (scroll-plan.ts): by what rows are
 * made of (`cells` false), or by their cells.
 */
class NextRows implements ScrollCosts {
  private built: (RowCells | undefined)[] = [];
  cells = false;

  constructor(
    private readonly sources: readonly Source[],
    private readonly shown: Shown,
    private readonly build: (y: number) => RowCells,
  ) {}

  row(y: number): RowCells {
    return (this.built[y] ??= this.same(y, y) ? this.shown.rows[y]! : this.build(y));
  }

  same(y: number, from: number): boolean {
    return sameSource(this.sources[y]!, this.shown.sources[from]!);
  }

  cost(y: number, from: number, cap?: number): number {
    return this.cells
      ? rowCost(this.shown.rows[from]!, this.row(y), cap)
      : partsCost(this.sources[y]!, this.shown.sources[from]!);
  }

  blank(y: number): number {
    return this.cells ? blankCost(this.row(y)) : partsCost(this.sources[y]!, BLANK);
  }

  /** The cost of each row where it is. */
  base(): number[] {
    return this.sources.map((_, y) => (this.same(y, y) ? 0 : this.cost(y, y)));
  }

  /**
   * Matching by what rows are made of: the shifts that bring overlay rows back to where the screen
   * shows them (an overlay's rows keep their objects as they move), most rows first. None when
   * comparing cells (then they are searched for).
   */
  shifts(): number[] {
    if (this.cells) return [];
    const shown = this.shown.sources;
    /** Where each overlay row is on the screen (-1: at more than one row, so it tells nothing). */
    const at = new Map<RowCells, number>();
    // (index loops: baseline code allocates an iterator result per step of a for-of)
    for (let y = 0; y < shown.length; y++) {
      const overs = shown[y]!.overs;
      for (let i = 0; i < overs.length; i++) {
        const o = overs[i];
        if (o) at.set(o[1], at.has(o[1]) ? -1 : y);
      }
    }
    /** Votes per shift, at MAX_SHIFT + by. */
    const votes = new Array<number>(2 * MAX_SHIFT + 1).fill(0);
    for (let y = 0; y < this.sources.length; y++) {
      const overs = this.sources[y]!.overs;
      for (let i = 0; i < overs.length; i++) {
        const o = overs[i];
        const from = o ? (at.get(o[1]) ?? -1) : -1;
        if (from >= 0 && from !== y && Math.abs(from - y) <= MAX_SHIFT) votes[MAX_SHIFT + from - y]!++;
      }
    }
    const out: number[] = [];
    for (let n = 0; n < 2; n++) {
      let best = -1;
      for (let k = 0; k < votes.length; k++) if (votes[k]! > 0 && (best < 0 || votes[k]! > votes[best]!)) best = k;
      if (best < 0) break;
      votes[best] = 0;
      out.push(best - MAX_SHIFT);
    }
    return out;
  }
}

/**
 * Whether to have the terminal scroll first, and how. Rows are first matched by what they are made
 * of (no cell read: the log's and a session's rows keep their objects as they move); only when that
 * finds nothing, and enough rows changed, are their cells compared (Ink's own lines scrolling, a
 * paused log or the diff paged through).
 */
function planFor(next: NextRows): ScrollPlan | null {
  next.cells = false;
  const base = next.base();
  if (base.filter((c) => c > 0).length < SCROLL_MIN_ROWS) return null;
  const bySource = planScroll(next, base, Infinity);
  if (bySource) return bySource;
  next.cells = true;
  return planScroll(next, next.base());
}

/**
 * About what drawing a row over another costs, told by what they are made of: a line of Ink's frame
 * that differs is a little (a clock, a tree row beside a pane: a few cells), an overlay row that
 * differs is more (a line of a log or a session).
 */
const INK_PART = 12;
const OVERLAY_PART = 24;

function partsCost(a: Source, b: Source): number {
  if (sameSource(a, b)) return 0;
  let n = a.line === b.line ? 0 : INK_PART;
  for (let i = 0; i < a.overs.length; i++) {
    const x = a.overs[i];
    const y = b.overs[i];
    if (x !== y && (!x || !y || x[0] !== y[0] || x[1] !== y[1])) n += OVERLAY_PART;
  }
  return n;
}

const BSU = '\x1b[?2026h';
const ESU = '\x1b[?2026l';
/** Rows changed in one flush before a scroll is looked for. */
const SCROLL_MIN_ROWS = 3;

export class Compositor {
  /** What the terminal shows, row by row, and what each row is made of; null: unknown (the next flush draws every row). */
  private shown: Shown | null = null;
  private lines: readonly string[] | null = null;
  /** Each row of Ink's frame as cells, with the line they were read from. */
  private inkRows: ({ line: string; width: number; cells: RowCells } | undefined)[] = [];
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

  /** Draw this overlay over the frame from now on (later overlays over earlier ones; `under`: under the others). */
  addOverlay(o: Overlay, under = false): void {
    const p: Placed = { overlay: o, region: null, rows: [] };
    if (under) this.overlays.unshift(p);
    else this.overlays.push(p);
    this.changed();
  }

  /** Ink's new frame, line by line. */
  frame(lines: readonly string[]): void {
    this.lines = lines;
    for (let i = 0; i < this.overlays.length; i++) this.overlays[i]!.overlay.frame?.();
    this.changed();
  }

  /** Whether it has a frame of Ink's to draw on (not since the screen was cleared or drawn on by another). */
  get hasFrame(): boolean {
    return this.lines !== null;
  }

  /** A layer changed (an overlay's place or rows): draw on the next flush. */
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
    this.inkRows = [];
  }

  /** Write what is pending now (before something else is written to the terminal). */
  flushNow(): void {
    if (this.pending) this.flush();
  }

  /** Draw what changed since the last flush. */
  flush(): void {
    this.pending = false;
    uiStats.flushes++;
    const lines = this.lines;
    if (!lines) return;
    const width = this.columns();
    const ink = (y: number): RowCells => this.inkRow(y, width);
    for (let i = 0; i < this.overlays.length; i++) {
      const p = this.overlays[i]!;
      p.region = p.overlay.region;
      p.rows = p.region ? p.overlay.rows(ink) : [];
    }
    const sources = lines.map((_, y) => this.sourceOf(y, this.shown?.sources[y]));
    const shown = this.shown;
    if (!shown || shown.rows.length !== lines.length || shown.width !== width) return this.redraw(width, sources);
    if (sources.every((src, y) => src === shown.sources[y])) return; // nothing changed
    const next = new NextRows(sources, shown, (y) => this.build(y, width, sources[y]!));
    const plan = planFor(next);
    const blank = plan ? blankRow(width) : null;
    // (rows are never changed in place: the rows a scroll brings in can be one blank row)
    const fromRows = plan ? applyScroll(shown.rows, plan, () => blank!) : shown.rows;
    const fromSources = plan ? applyScroll(shown.sources, plan, () => BLANK) : shown.sources;
    const pen: PenState = { look: PLAIN };
    let out = plan ? scrollText(plan) : '';
    const rows: RowCells[] = [];
    for (let y = 0; y < lines.length; y++) {
      if (sameSource(sources[y]!, fromSources[y]!)) {
        rows.push(fromRows[y]!);
        continue;
      }
      const cells = next.row(y);
      out += drawRow(fromRows[y]!, cells, y, pen);
      rows.push(cells);
    }
    if (plan) {
      this.scrolls++;
      uiStats.scrolls++;
    }
    this.shown = { rows, sources, width };
    this.emit(out, pen, lines.length);
  }

  /** Every row, erased and written (the screen is unknown or changed size). */
  private redraw(width: number, sources: Source[]): void {
    const lines = this.lines!;
    const rows: RowCells[] = [];
    const pen: PenState = { look: PLAIN };
    let out = '';
    for (let y = 0; y < lines.length; y++) {
      const r = this.build(y, width, sources[y]!);
      rows.push(r);
      out += drawRow(null, r, y, pen);
    }
    out += `\x1b[${lines.length + 1};1H\x1b[J`; // below the frame: whatever was there goes
    this.shown = { rows, sources, width };
    this.emit(out, pen, lines.length);
  }

  private emit(out: string, pen: PenState, frameRows: number): void {
    if (!out) return;
    if (pen.look !== PLAIN) out += '\x1b[0m';
    const s = `${BSU}${out}\x1b[${frameRows + 1};1H${ESU}`;
    const n = Buffer.byteLength(s);
    this.bytes += n;
    this.writes++;
    uiStats.bytes += n;
    uiStats.writes++;
    this.write(s);
  }

  /** What row y is made of now (`was` itself when that has not changed: one object per unchanged row). */
  private sourceOf(y: number, was: Source | undefined): Source {
    const line = this.lines![y];
    if (was && was.line === line && was.overs.length === this.overlays.length) {
      let same = true;
      for (let i = 0; same && i < this.overlays.length; i++) {
        const p = this.overlays[i]!;
        const r = p.region;
        const cells = r && y >= r.y && y < r.y + r.height ? p.rows[y - r.y] : undefined;
        const o = was.overs[i];
        same = cells ? o !== undefined && o[0] === r!.x && o[1] === cells : o === undefined;
      }
      if (same) return was;
    }
    const overs: (readonly [number, RowCells] | undefined)[] = [];
    // (no closure per row: baseline code allocates one per call)
    for (let i = 0; i < this.overlays.length; i++) {
      const p = this.overlays[i]!;
      const r = p.region;
      const cells = r && y >= r.y && y < r.y + r.height ? p.rows[y - r.y] : undefined;
      overs.push(cells ? [r!.x, cells] : undefined);
    }
    return { line, overs };
  }

  private inkRow(y: number, width: number): RowCells {
    const line = this.lines![y];
    if (line === undefined) return blankRow(width);
    const had = this.inkRows[y];
    if (had && had.line === line && had.width === width) return had.cells;
    const cells = parseLineCells(line, width);
    this.inkRows[y] = { line, width, cells };
    return cells;
  }

  /** Row y's cells, from its layers: Ink's line, each overlay's row over it. */
  private build(y: number, width: number, src: Source): RowCells {
    const ink = this.inkRow(y, width);
    let row = ink;
    for (let i = 0; i < src.overs.length; i++) {
      const o = src.overs[i];
      const r = this.overlays[i]!.region;
      if (!o || !r) continue;
      const x = o[0];
      const over = o[1];
      if (row === ink) row = { chars: ink.chars.slice(), looks: ink.looks.slice() };
      const n = Math.min(over.chars.length, r.width, width - x);
      const { chars, looks } = row;
      const oc = over.chars;
      const ol = over.looks;
      for (let c = 0; c < n; c++) {
        chars[x + c] = oc[c]!;
        looks[x + c] = ol[c]!;
      }
      if (n <= 0) continue;
      // A wide character of the frame cut by the overlay's edge is gone (as on a terminal).
      if (x > 0 && ink.chars[x] === '') {
        chars[x - 1] = ' ';
        looks[x - 1] = PLAIN;
      }
      if (x + n < width && ink.chars[x + n] === '') {
        chars[x + n] = ' ';
        looks[x + n] = PLAIN;
      }
    }
    return row;
  }
}

/**
 * The preview pane's inside, painted straight onto the terminal beside Ink's frame, the way a
 * terminal multiplexer draws a pane: Ink draws the pane (border, title, status) with an empty
 * inside and never sees the session's screen; this painter keeps what it last drew there, cell by
 * cell, and on each frame writes only the spans that differ (cursor addressing, saved and restored
 * around each paint so Ink's own cursor bookkeeping is untouched).
 *
 * - `paint()`: the session's screen changed (called at most once per frame by the preview feed).
 *   An unchanged screen writes nothing.
 * - `inkWrote(rows)`: Ink rewrote these rows of its frame (each whole, so the inside is blank there
 *   again): repaint their non-blank cells. Frames are written as the lines that changed
 *   (frame-diff.ts), so a frame where only a clock moved costs the clock's row, not the pane.
 * - `place(region)`: where the inside is now (null: not shown). What was painted in the old place
 *   and is still on the terminal is erased, since frames do not rewrite rows that did not change.
 */
import { blankRow, PLAIN, type RowCells } from '../../ptyd/cells.js';
import type { ScreenGrid } from '../../pty/viewer.js';
import { PreviewFrames } from '../preview/damage.js';
import type { FrameWrite } from './frame-diff.js';

export interface PaintRegion {
  /** Whose screen goes there (rows of another session are not painted). */
  sessionId: string;
  /** Top-left cell of the pane's inside, 0-based. */
  x: number;
  y: number;
  width: number;
  height: number;
  colour: boolean;
}

const CSI = '\x1b[';
const SAVE = '\x1b7';
const RESTORE = '\x1b8';

export class PreviewPainter {
  private region: PaintRegion | null = null;
  private shown: RowCells[] = [];
  private frames = new PreviewFrames();
  private pending: NodeJS.Immediate | undefined;
  /** Bytes and writes so far (tests, benches). */
  bytes = 0;
  writes = 0;

  constructor(
    private readonly write: (s: string) => void,
    /** The screen of this session, if it is the one the preview shows (else null). */
    private readonly source: (sessionId: string) => ScreenGrid | null,
  ) {}

  get placed(): PaintRegion | null {
    return this.region;
  }

  place(region: PaintRegion | null): void {
    const was = this.region;
    const same =
      region &&
      was &&
      region.x === was.x &&
      region.y === was.y &&
      region.width === was.width &&
      region.height === was.height &&
      region.colour === was.colour;
    if (same) {
      // Another session in the same pane: the cells on the terminal are known, draw the difference.
      if (region.sessionId === was.sessionId) return;
      this.region = region;
      this.paint();
      return;
    }
    if (this.pending) clearImmediate(this.pending);
    this.pending = undefined;
    // Frames leave rows that did not change alone: cells painted there stay unless erased.
    // (Rows a frame did rewrite were blanked in `shown` by inkWrote.)
    if (was) this.erase(was);
    this.region = region;
    this.frames = new PreviewFrames();
    this.blank();
    if (region) this.paint();
  }

  /**
   * Ink rewrote these rows: the inside shows blanks there now. Repainted on the next turn, not here:
   * Ink writes a frame while React commits it, before the app's layout effects say whether that
   * frame still has the pane (a dialog may have taken its place).
   */
  inkWrote(rows: FrameWrite['rows'] = 'all'): void {
    const r = this.region;
    if (!r) return;
    if (rows === 'all') this.blank();
    else {
      let any = false;
      for (let i = 0; i < r.height; i++) {
        if (!rows.has(r.y + i)) continue;
        this.shown[i] = blankRow(r.width);
        any = true;
      }
      if (!any) return;
    }
    this.pending ??= setImmediate(() => {
      this.pending = undefined;
      this.paint();
    });
  }

  /** Blank what this painter drew in `r` and is still on the terminal. */
  private erase(r: PaintRegion): void {
    let out = '';
    const pen = { look: PLAIN };
    for (let i = 0; i < r.height; i++) {
      const prev = this.shown[i];
      if (prev) out += diffRow(prev, blankRow(r.width), r.width, r.x, r.y + i, pen);
    }
    this.flush(out, pen);
  }

  /** Forget what is on the terminal (it was cleared): the next paint draws every non-blank cell. */
  blank(): void {
    const r = this.region;
    this.shown = r ? Array.from({ length: r.height }, () => blankRow(r.width)) : [];
  }

  paint(): void {
    const r = this.region;
    if (!r) return;
    const grid = this.source(r.sessionId);
    const rows = grid ? this.frames.frame(grid, r.width, r.height, r.colour) : [];
    let out = '';
    const pen = { look: PLAIN };
    for (let i = 0; i < r.height; i++) {
      const next = rows[i] ?? blankRow(r.width);
      const prev = this.shown[i] ?? blankRow(r.width);
      const span = diffRow(prev, next, r.width, r.x, r.y + i, pen);
      if (span) {
        out += span;
        this.shown[i] = next;
      }
    }
    this.flush(out, pen);
  }

  private flush(out: string, pen: { look: string }): void {
    if (!out) return;
    if (pen.look !== PLAIN) out += `${CSI}0m`;
    const s = `${SAVE}${CSI}0m${out}${RESTORE}`;
    this.bytes += Buffer.byteLength(s);
    this.writes++;
    this.write(s);
  }
}

/** Where `prev` and `next` differ, drawn at row `y` (or '' when they don't). */
export function diffRow(
  prev: RowCells,
  next: RowCells,
  width: number,
  x0: number,
  y: number,
  pen: { look: string },
): string {
  let a = 0;
  while (a < width && prev.chars[a] === next.chars[a] && prev.looks[a] === next.looks[a]) a++;
  if (a === width) return '';
  let b = width - 1;
  while (b > a && prev.chars[b] === next.chars[b] && prev.looks[b] === next.looks[b]) b--;
  // Never start or end inside a wide character (old or new).
  while (a > 0 && (next.chars[a] === '' || prev.chars[a] === '')) a--;
  while (b + 1 < width && (next.chars[b + 1] === '' || prev.chars[b + 1] === '')) b++;
  // A run of plain blanks at the end is erased (ECH) instead of written.
  let end = b;
  while (end >= a && next.chars[end] === ' ' && next.looks[end] === PLAIN) end--;
  let out = `${CSI}${y + 1};${x0 + a + 1}H`;
  for (let c = a; c <= end; c++) {
    const ch = next.chars[c]!;
    if (ch === '') continue;
    const look = next.looks[c]!;
    if (look !== pen.look) {
      out += `${CSI}${look}m`;
      pen.look = look;
    }
    out += ch;
  }
  const blanks = b - end;
  if (blanks > 0) {
    if (pen.look !== PLAIN) {
      out += `${CSI}0m`;
      pen.look = PLAIN;
    }
    out += blanks > 4 ? `${CSI}${blanks}X` : ' '.repeat(blanks);
  }
  return out;
}

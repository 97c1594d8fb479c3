/**
 * The preview pane's inside: the selected PTY session's screen, drawn over Ink's frame as the
 * compositor's overlay, the way a terminal multiplexer draws a pane. Ink draws the pane (border,
 * title, status) with an empty inside and never sees the session's screen.
 *
 * - `paint()`: the session's screen changed (called at most once per frame by the preview feed).
 *   The compositor reads the rows on its next flush; rows that did not change are the same
 *   objects (preview/damage.ts), so they cost nothing and draw nothing.
 * - `place(region)`: where the inside is now (null: not shown). The rows it leaves show Ink's
 *   frame again; the rows it comes to are drawn.
 */
import type { ScreenGrid } from '../../pty/viewer.js';
import type { RowCells } from '../../ptyd/cells.js';
import { PreviewFrames } from '../preview/damage.js';
import type { Compositor, Overlay } from './compositor.js';
import { uiStats } from './ui-stats.js';

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

export class PreviewPainter implements Overlay {
  private placedAt: PaintRegion | null = null;
  private frames = new PreviewFrames();

  constructor(
    private readonly screen: Pick<Compositor, 'changed'>,
    /** The screen of this session, if it is the one the preview shows (else null). */
    private readonly source: (sessionId: string) => ScreenGrid | null,
  ) {}

  get placed(): PaintRegion | null {
    return this.placedAt;
  }

  get region(): PaintRegion | null {
    return this.placedAt;
  }

  /** Screen rows read so far (not served from the cache): tests and benches. */
  get reads(): number {
    return this.frames.reads;
  }

  place(region: PaintRegion | null): void {
    const was = this.placedAt;
    const sameShape =
      region &&
      was &&
      region.x === was.x &&
      region.y === was.y &&
      region.width === was.width &&
      region.height === was.height &&
      region.colour === was.colour;
    if (sameShape && region.sessionId === was.sessionId) return;
    this.placedAt = region;
    // Another session in the same pane: the cells on the terminal are known, the difference is drawn.
    if (!sameShape) this.frames = new PreviewFrames();
    this.screen.changed();
  }

  paint(): void {
    uiStats.previewFrames++;
    if (this.placedAt) this.screen.changed();
  }

  rows(): readonly RowCells[] {
    const r = this.placedAt;
    if (!r) return [];
    const grid = this.source(r.sessionId);
    return grid ? this.frames.frame(grid, r.width, r.height, r.colour) : [];
  }
}

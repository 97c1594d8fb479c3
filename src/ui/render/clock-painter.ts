/**
 * The running rows' clocks ("1m05s" in the tree), moved by the compositor instead of by Ink: a
 * tick that changes only the digits of the clocks on screen is the digits written where Ink drew
 * them, not a React render and a whole Ink frame (a frame is milliseconds; this is microseconds).
 *
 * The tree, when it renders, says where each clock it drew is (its cell, the time it counts from
 * and the text drawn): `rendered()`. That becomes what the screen shows when Ink draws the frame
 * made from that render (`computed()` when Ink renders the tree, `frame()` when the frame reaches
 * the compositor: Ink holds frames back to its frame-rate cap), so the clocks drawn always belong
 * to the frame under them. Each tick the painter works out what a render now would change:
 *
 * - only clock digits (same width): it draws them over Ink's row, in Ink's looks, on the
 *   compositor's next flush;
 * - anything else (a clock that gets wider, "59s" → "1m00s"; an age in the right-hand column that
 *   reads differently; a clock cut by the pane's edge): a React render, as before (`getSnapshot`
 *   moves; the tree's time reads it, hooks/use-clock.ts).
 *
 * A clock is only drawn where Ink's row shows the text the tree drew there: a frame that is not the
 * tree's (a dialog, the help) is never written on.
 */
import { elapsed } from '../../lib/format.js';
import type { RowCells } from '../../ptyd/cells.js';
import { Emitter, type Source } from '../../feeds/store.js';
import { formatAge } from '../text.js';
import type { Compositor, Overlay, OverlayRegion } from './compositor.js';
import { uiStats } from './ui-stats.js';

/** The tree pane's inside on the screen (header row, the pane's top border; its border and padding). */
export const TREE_INSIDE = { x: 2, y: 2 } as const;

/** A running row's clock as the tree drew it. */
export interface ClockSpot {
  /** Its first cell on the screen, 0-based. */
  x: number;
  y: number;
  /** The time it counts from (ms). */
  from: number;
  /** The text drawn (elapsed(now - from) at the render's now). */
  text: string;
}

/** What the tree drew that moves with time. */
export interface TreeClocks {
  /** The time the render was as of. */
  now: number;
  /** Clocks shown whole. */
  spots: readonly ClockSpot[];
  /** Running rows whose clock is cut (`shown`) or left out for want of room: their row changes with its text or width. */
  loose: readonly { from: number; text: string; shown: boolean }[];
  /** Creation times of the rows whose age is shown. */
  ages: readonly number[];
}

/** What the painter needs of the dashboard's clock. */
export interface Ticks {
  subscribe(listener: () => void): () => void;
}

const NONE: TreeClocks = { now: 0, spots: [], loose: [], ages: [] };

export class ClockPainter extends Emitter implements Overlay, Source<number> {
  /** What the tree rendered last; what Ink's last render drew; what the frame on the screen shows. */
  private drawn: TreeClocks = NONE;
  private owner: object | null = null;
  private computedAt: TreeClocks = NONE;
  private shown: TreeClocks = NONE;
  /** The time of the last tick. */
  private now = 0;
  /** Ticks handed to React (a render). */
  private renders = 0;
  private asked = false;
  private cells = new Map<number, { under: RowCells; x: number; text: string; row: RowCells }>();
  region: OverlayRegion | null = null;

  constructor(
    private readonly screen: Pick<Compositor, 'changed' | 'hasFrame'>,
    clock: Ticks,
    private readonly realNow: () => number = Date.now,
  ) {
    super();
    clock.subscribe(this.tick);
  }

  /** Ticks that need a render: what the tree's time follows. */
  getSnapshot = (): number => this.renders;

  /**
   * The tree `owner` rendered these clocks (null: none). A tree that goes says null too, which
   * leaves what another tree (mounted in the same commit) rendered.
   */
  rendered(c: TreeClocks | null, owner: object): void {
    if (c) {
      this.drawn = c;
      this.owner = owner;
    } else if (this.owner === owner || this.drawn === NONE) {
      this.drawn = NONE;
      this.owner = null;
    }
  }

  /** Ink rendered the tree as it is now. */
  computed(): void {
    this.computedAt = this.drawn;
    // The same texts in the same places: the frame on the screen is this one (Ink writes nothing new).
    if (sameLayout(this.computedAt, this.shown)) this.show(this.computedAt);
  }

  /** Ink's frame reached the compositor: it is the one Ink rendered last. */
  frame(): void {
    this.show(this.computedAt);
  }

  private show(c: TreeClocks): void {
    this.shown = c;
    this.region = c.spots.length ? { x: 0, y: 0, width: 1 << 20, height: maxY(c) + 1 } : null;
  }

  private tick = (): void => {
    this.now = this.realNow();
    const c = this.shown;
    const moved = this.drawn.spots.some((s) => elapsed(this.now - s.from) !== s.text);
    // (no frame to draw on: Ink drew the screen itself, clearing it; its next frame is the way back)
    if ((moved && !this.screen.hasFrame) || needsRender(this.drawn, this.now) || needsRender(c, this.now)) {
      this.renders++;
      this.emit();
      return;
    }
    if (c.spots.some((s) => elapsed(this.now - s.from) !== s.text)) {
      uiStats.clockPaints++;
      this.screen.changed();
    }
  };

  /** A render after this flush (not inside it: a render draws a frame, which flushes). */
  private renderSoon(): void {
    if (this.asked) return;
    this.asked = true;
    setImmediate(() => {
      this.asked = false;
      this.renders++;
      this.emit();
    });
  }

  rows(ink: (y: number) => RowCells): readonly (RowCells | undefined)[] {
    const c = this.shown;
    const t = Math.max(this.now, c.now);
    const out: (RowCells | undefined)[] = [];
    const kept = new Map<number, { under: RowCells; x: number; text: string; row: RowCells }>();
    for (const s of c.spots) {
      const text = elapsed(t - s.from);
      if (text === s.text || text.length !== s.text.length) continue;
      const under = ink(s.y);
      if (!shows(under, s.x, s.text)) {
        // Not where the tree said (a frame Ink has not drawn yet, or text measured otherwise than
        // Ink measures it): this clock moves by a render, as it did before the painter.
        this.renderSoon();
        continue;
      }
      let hit = this.cells.get(s.y);
      if (!hit || hit.under !== under || hit.x !== s.x || hit.text !== text) {
        const end = s.x + text.length;
        const row = { chars: under.chars.slice(0, end), looks: under.looks.slice(0, end) };
        for (let i = 0; i < text.length; i++) row.chars[s.x + i] = text[i]!;
        hit = { under, x: s.x, text, row };
      }
      kept.set(s.y, hit);
      while (out.length < s.y) out.push(undefined);
      out[s.y] = hit.row;
    }
    this.cells = kept;
    return out;
  }
}

/** Whether Ink's row has this text at this cell. */
function shows(row: RowCells, x: number, text: string): boolean {
  if (x + text.length > row.chars.length) return false;
  for (let i = 0; i < text.length; i++) if (row.chars[x + i] !== text[i]) return false;
  return true;
}

/** Whether a render at `now` would change more than clock digits. */
function needsRender(c: TreeClocks, now: number): boolean {
  if (now <= c.now) return false;
  for (const s of c.spots) if (elapsed(now - s.from).length !== s.text.length) return true;
  for (const l of c.loose) {
    const text = elapsed(now - l.from);
    if (l.shown ? text !== l.text : text.length !== l.text.length) return true;
  }
  for (const a of c.ages) if (formatAge(now - a) !== formatAge(c.now - a)) return true;
  return false;
}

function sameLayout(a: TreeClocks, b: TreeClocks): boolean {
  if (a.spots.length !== b.spots.length) return false;
  return a.spots.every((s, i) => {
    const o = b.spots[i]!;
    return s.x === o.x && s.y === o.y && s.text === o.text;
  });
}

function maxY(c: TreeClocks): number {
  let y = 0;
  for (const s of c.spots) y = Math.max(y, s.y);
  return y;
}

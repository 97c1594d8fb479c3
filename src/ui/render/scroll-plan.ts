/**
 * When the rows to draw are mostly the rows on the screen moved up or down (a log pane or a
 * session's screen scrolling), the terminal can move them itself: a scroll region over those rows
 * (DECSTBM) scrolled by k (IND/RI), then only what still differs is drawn. The region takes whole
 * rows, so whatever sits beside the scrolling pane moves too and is drawn back where it differs;
 * the plan is taken only when that costs less than drawing the pane's rows.
 *
 * Pure: the costs are rows' byte estimates (the caller's, from row-diff.ts), the plan the cheapest
 * region and shift, or null when no shift is worth it.
 */

export interface ScrollPlan {
  /** First and last row of the region (0-based, inclusive). */
  top: number;
  bottom: number;
  /** Rows the content moves: > 0 up (new rows at the bottom), < 0 down. */
  by: number;
}

/** The furthest shift looked for: streamed output moves a few rows a frame; a page jump is redrawn. */
export const MAX_SHIFT = 8;
/** The scroll's own bytes (region, moves, reset). */
const OVERHEAD = 24;

/** What planning needs of the rows to draw (row indexes are screen rows). */
export interface ScrollCosts {
  /** Next row y is made of what row `from` on the screen is (no cell read: the cost is 0). */
  same(y: number, from: number): boolean;
  /** About what drawing next row y over screen row `from` costs (counting may stop past `cap`). */
  cost(y: number, from: number, cap?: number): number;
  /** About what drawing next row y on a blank row costs. */
  blank(y: number): number;
  /**
   * The shifts worth a full look, when the caller can tell them without a search (rows that keep
   * their objects as they move: where each one was); none told: searched for (see candidates).
   */
  shifts?(): readonly number[];
}

/**
 * The cheapest region and shift for drawing the next rows over the screen's, or null when drawing
 * the rows where they are costs as little. `base[y]` is the cost of next row y over screen row y.
 */
export function planScroll(c: ScrollCosts, base: readonly number[], anchors = ANCHORS): ScrollPlan | null {
  const rows = base.length;
  let best: ScrollPlan | null = null;
  let saving = OVERHEAD; // a plan must save more than the scroll costs
  const moved = (y: number, from: number): number => (c.same(y, from) ? 0 : c.cost(y, from));
  const blanks: number[] = [];
  const blank = (y: number): number => (blanks[y] ??= c.blank(y));
  const told = c.shifts?.() ?? [];
  for (const by of told.length > 0 ? told : candidates(c, base, anchors)) {
    const p = bestRegion(rows, moved, base, blank, Math.abs(by), by > 0 ? 1 : -1);
    if (p && p.gain > saving) {
      saving = p.gain;
      best = p.plan;
    }
  }
  return rows > 1 ? best : null;
}

/** Rows looked at for shifts, by default: the costliest of the rows to draw. */
const ANCHORS = 4;

/**
 * The shifts worth a full look: those that bring one of the `n` costliest rows to draw within half
 * its cost (checking a shift against a row stops as soon as it is clearly no match). A caller whose
 * `same` is cheap looks at every row to draw.
 */
function candidates(c: ScrollCosts, base: readonly number[], n: number): number[] {
  const rows = base.length;
  const anchors = base
    .map((cost, y) => [cost, y] as const)
    .filter(([cost]) => cost > 0)
    .sort((a, b) => b[0] - a[0])
    .slice(0, n);
  const votes = new Map<number, number>();
  for (let a = 0; a < anchors.length; a++) {
    const cost = anchors[a]![0];
    const y = anchors[a]![1];
    for (let k = 1; k <= MAX_SHIFT; k++) {
      for (let by = k; by >= -k; by -= 2 * k) {
        const from = y + by;
        if (from < 0 || from >= rows) continue;
        if (c.same(y, from) || c.cost(y, from, cost / 2) < cost / 2) votes.set(by, (votes.get(by) ?? 0) + 1);
      }
    }
  }
  return [...votes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 2)
    .map(([by]) => by);
}

/**
 * Shifting up by k (dir 1; dir -1 mirrors it: rows counted from the bottom), region [a, b]:
 * rows a..b-k show old rows a+k..b, rows b-k+1..b are blank. Its saving over drawing in place is
 * Σ_{a..b-k} (base - moved) + Σ_{b-k+1..b} (base - blank); the best region for each end is a
 * running maximum (Kadane's).
 */
function bestRegion(
  rows: number,
  moved: (y: number, from: number) => number,
  base: readonly number[],
  blank: (y: number) => number,
  k: number,
  dir: 1 | -1,
): { plan: ScrollPlan; gain: number } | null {
  const at = (i: number): number => (dir === 1 ? i : rows - 1 - i);
  let run = 0; // best saving of a region of moved rows ending at e
  let runStart = 0;
  let best: { plan: ScrollPlan; gain: number } | null = null;
  // The k rows after e come in blank: their saving, a sum over a window that slides with e.
  const fresh = (i: number): number => base[at(i)]! - blank(at(i));
  let tail = 0;
  for (let t = 1; t <= k && t < rows; t++) tail += fresh(t);
  for (let e = 0; e + k < rows; e++) {
    const y = at(e);
    const g = base[y]! - moved(y, at(e + k));
    if (run <= 0) {
      run = g;
      runStart = e;
    } else run += g;
    const gain = run + tail;
    if (gain > 0 && (!best || gain > best.gain)) {
      const a = runStart;
      const b = e + k;
      best = {
        gain,
        plan: dir === 1 ? { top: a, bottom: b, by: k } : { top: rows - 1 - b, bottom: rows - 1 - a, by: -k },
      };
    }
    tail -= fresh(e + 1);
    if (e + k + 1 < rows) tail += fresh(e + k + 1);
  }
  return best;
}

/** What the screen shows after the scroll: rows moved within the region, blank rows brought in. */
export function applyScroll<T>(shown: readonly T[], plan: ScrollPlan, blank: () => T): T[] {
  const out = [...shown];
  const { top, bottom, by } = plan;
  for (let y = top; y <= bottom; y++) {
    const from = y + by;
    out[y] = from >= top && from <= bottom ? shown[from]! : blank();
  }
  return out;
}

/**
 * The bytes that make the terminal do it: the pen reset (the rows brought in are plain), the
 * region, IND at its bottom (moves its rows up one) or RI at its top (down one) k times, and the
 * region back to the whole screen. All VT100, so every terminal has them.
 */
export function scrollText(plan: ScrollPlan): string {
  const { top, bottom, by } = plan;
  const k = Math.abs(by);
  const step = by > 0 ? `\x1b[${bottom + 1};1H${'\x1bD'.repeat(k)}` : `\x1b[${top + 1};1H${'\x1bM'.repeat(k)}`;
  return `\x1b[0m\x1b[${top + 1};${bottom + 1}r${step}\x1b[r`;
}

/**
 * Rows that moved: when the CLI's output scrolls, most rows of its screen are rows a grid viewer
 * already has, one or more places up (or down). Found here by comparing each row's raw cells
 * (cells.ts rowStamp) with the rows last sent, so the viewer is told to move them (framing.ts
 * GridMove) and sent only the rows that are new. Pure.
 */
import type { GridMove } from './framing.js';
import { sameStamp } from './cells.js';

/** The furthest a frame's rows are looked for: output scrolls a few rows a frame. */
const MAX_SHIFT = 8;
/** Rows a move must save (a move of fewer is not worth its entry). */
const MIN_ROWS = 3;

/** FNV-1a over a row's raw cells (-1: no cells to compare). */
function hash(a: Uint32Array | null): number {
  if (!a) return -1;
  let h = 0x811c9dc5;
  for (let i = 0; i < a.length; i++) h = Math.imul(h ^ a[i]!, 0x01000193);
  return h >>> 0;
}

/**
 * The move that turns the most rows of `sent` into rows of `now` (same length), or null. Only rows
 * that changed and are unlike every other row count (a blank row or a repeated rule could come from
 * anywhere).
 */
export function findMove(sent: readonly (Uint32Array | null)[], now: readonly (Uint32Array | null)[]): GridMove | null {
  const n = now.length;
  if (sent.length !== n) return null;
  const hs = sent.map(hash);
  const hn = now.map(hash);
  const seen = new Map<number, number>();
  for (const h of hn) seen.set(h, (seen.get(h) ?? 0) + 1);
  let best: GridMove | null = null;
  let most = MIN_ROWS - 1;
  for (let k = 1; k <= MAX_SHIFT; k++) {
    for (const by of [k, -k]) {
      let votes = 0;
      let top = n;
      let bottom = -1;
      for (let y = 0; y < n; y++) {
        const from = y + by;
        if (from < 0 || from >= n || hn[y] === -1 || hn[y] === hs[y] || seen.get(hn[y]!) !== 1) continue;
        if (hn[y] !== hs[from] || !sameStamp(sent[from]!, now[y]!)) continue;
        votes++;
        top = Math.min(top, y, from);
        bottom = Math.max(bottom, y, from);
      }
      if (votes > most) {
        most = votes;
        best = { top, bottom, by };
      }
    }
  }
  return best;
}

/** `rows` after the move: moved within the range, the rows brought in from `blank`. */
export function applyMove<T>(rows: readonly T[], m: GridMove, blank: () => T): T[] {
  const out = [...rows];
  const top = Math.max(0, m.top);
  const bottom = Math.min(rows.length - 1, m.bottom);
  for (let y = top; y <= bottom; y++) {
    const from = y + m.by;
    out[y] = from >= top && from <= bottom ? rows[from]! : blank();
  }
  return out;
}

/**
 * Ink writes every frame whole: it erases its last frame line by line and writes the new one
 * (ink/build/log-update.js, standard mode). On a dashboard a frame differs from the last in a
 * row or two (a clock, a growing line), so the dashboard's stdout rewrites that chunk into the
 * lines that changed, each addressed by its row, and tells the preview painter which rows those
 * were (the cells it painted in other rows are still on the screen).
 *
 * Ink's own `incrementalRendering` does not fit: in Ink 6.8 it moves the cursor up one line too
 * few after a frame that ends with a newline (every frame shorter than the terminal), so each
 * frame lands one row lower than the last.
 *
 * The frame starts at the top of the alternate screen (entering and clearing it homes the
 * cursor, and a frame is always shorter than the screen, so it never scrolls). After the rewrite
 * the cursor is where Ink leaves it: at the start of the line below the frame.
 */
const ERASE_PREFIX = /^(?:\x1b\[2K\x1b\[1A)*(?:\x1b\[2K\x1b\[G)?/;
/** Anything that moves the cursor or erases (beyond the SGR and OSC a frame's text carries). */
const MOVES = /\x1b\[[0-9;?]*[A-HJKSTfsu]|\x1b[78DEM]|\r/;

/** The frame a chunk from Ink holds, as its lines; null when the chunk is something else. */
export function frameLines(chunk: string): string[] | null {
  const body = chunk.slice(ERASE_PREFIX.exec(chunk)![0].length);
  if (!body.endsWith('\n') || MOVES.test(body)) return null;
  return body.slice(0, -1).split('\n');
}

export interface FrameWrite {
  /** What to write instead of Ink's chunk. */
  text: string;
  /** Screen rows rewritten (0-based); 'all' when the screen was unknown and the frame went out whole. */
  rows: 'all' | ReadonlySet<number>;
}

const at = (row: number): string => `\x1b[${row + 1};1H`;

/**
 * Write `next` over `prev` (the frame on the screen, null: unknown). Each changed line is erased
 * whole and written (erasing first, not after: a line as wide as the screen leaves the cursor on
 * its last column, where erasing to the end would take the last character).
 */
export function diffFrame(prev: readonly string[] | null, next: readonly string[]): FrameWrite {
  let text = '';
  const rows = new Set<number>();
  for (let i = 0; i < next.length; i++) {
    if (prev && prev[i] === next[i]) continue;
    text += `${at(i)}\x1b[2K${next[i]}`;
    rows.add(i);
  }
  if (prev) {
    for (let i = next.length; i < prev.length; i++) {
      text += `${at(i)}\x1b[2K`;
      rows.add(i);
    }
  } else {
    text += `${at(next.length)}\x1b[J`; // below the frame: whatever was there goes
  }
  text += at(next.length);
  return { text, rows: prev ? rows : 'all' };
}

/**
 * Ink writes every frame whole: it erases its last frame line by line and writes the new one
 * (ink/build/log-update.js, standard mode). The dashboard's stdout takes the frame's lines out of
 * that chunk and hands them to the compositor (compositor.ts), which draws only the cells that
 * changed.
 *
 * Ink's own `incrementalRendering` does not fit: in Ink 6.8 it moves the cursor up one line too
 * few after a frame that ends with a newline (every frame shorter than the terminal), so each
 * frame lands one row lower than the last.
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

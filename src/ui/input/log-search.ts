/**
 * Searching the log pane (`/` while it has focus, n/N): which shown line matches next. Pure;
 * case-insensitive plain text (people type what they see, not regular expressions).
 */
import type { LogLine } from '../log/event-lines.js';

/**
 * The index of the next line containing `query`, searching from `from` in `dir` and wrapping
 * around; -1 when no line matches.
 */
export function findLogMatch(
  lines: readonly Pick<LogLine, 'text'>[],
  query: string,
  from: number,
  dir: 1 | -1,
): number {
  const q = query.trim().toLowerCase();
  const n = lines.length;
  if (!q || n === 0) return -1;
  const start = ((from % n) + n) % n;
  for (let k = 0; k < n; k++) {
    const i = (((start + dir * k) % n) + n) % n;
    if (lines[i]!.text.toLowerCase().includes(q)) return i;
  }
  return -1;
}

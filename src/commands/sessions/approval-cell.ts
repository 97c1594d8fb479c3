/**
 * The last cell of a `klaude sessions` row that waits on a permission request: what is asked (the
 * command, whole up to a length, its middle cut beyond) and how to answer. It is the one cell a
 * reader (a person, or a Claude reading its Bash tool's output) must read whole, so a row that
 * does not fit the width wraps it onto lines of its own instead of cutting it.
 */
import { shortId } from '../../core/ids.js';
import { shortenMiddle, wrapWords } from '../../lib/format.js';
import { truncate } from '../../logs/format.js';

/** What is asked, at most this long (a longer command keeps its start and its end). */
const ASK_MAX = 160;
/** Below this many columns of room in its column, the cell goes on lines of its own under the row. */
const MIN_ROOM = 32;
/** Lines the cell may take; the last is cut beyond them. */
const MAX_LINES = 4;

export function approvalCell(ask: { toolName: string; summary: string }, sessionId: string): string {
  const what = `${ask.toolName}: ${ask.summary}`.replace(/\s+/g, ' ').trim();
  return `needs approval: ${shortenMiddle(what, ASK_MAX)} (klaude approve|deny ${shortId(sessionId)})`;
}

/**
 * A rendered row whose last cell starts at `column`, in lines of at most `width`: as it is when it
 * fits; else its last cell wrapped in its column (hanging under it) when it fits there whole, else
 * on lines of its own under the row (after the tree's lines, `indent`), its middle cut past MAX_LINES.
 */
export function fitLastCell(line: string, column: number, width: number, indent: string): string[] {
  if ([...line].length <= width) return [line];
  const head = line.slice(0, column);
  const cell = line.slice(column);
  const room = width - column;
  // In its column when it fits there whole (in MAX_LINES), else under the row, where lines are longer.
  const inColumn = room >= MIN_ROOM ? wrapWords(cell, room) : null;
  if (inColumn && inColumn.length <= MAX_LINES)
    return [head + inColumn[0]!, ...inColumn.slice(1).map((l) => ' '.repeat(column) + l)];
  const lead = `${indent.trimEnd()}  `.length <= width / 2 ? `${indent.trimEnd()}  ` : '  ';
  const under = wrapCell(cell, width - lead.length);
  return [truncate(head.trimEnd(), width), ...under.map((l) => lead + l)];
}

/** The cell in lines of `width`, at most MAX_LINES: past them its middle is cut (both ends kept). */
function wrapCell(cell: string, width: number): string[] {
  let lines = wrapWords(cell, width);
  for (let budget = width * MAX_LINES; lines.length > MAX_LINES && budget > width; budget -= Math.ceil(width / 4))
    lines = wrapWords(shortenMiddle(cell, budget), width);
  return lines.slice(0, MAX_LINES);
}

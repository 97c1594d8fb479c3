/**
 * The `klaude sessions` table: one padded row per session of a tree (cells from sessions-cells.ts),
 * fitted to the terminal's width, a pending approval's cell wrapped (approval-cell.ts), the rest cut.
 */
import { shortId } from '../../core/ids.js';
import { flattenTree, type TreeNode } from '../../core/tree.js';
import type { ApprovalRow } from '../../db/repos/approvals.js';
import type { LiveProcesses, SessionListRow } from '../../db/repos/listing.js';
import { hasUnsafe, safeText } from '../../lib/escapes.js';
import { age } from '../../lib/format.js';
import { truncate } from '../../logs/format.js';
import { approvalCell, fitLastCell } from './approval-cell.js';
import { activityCell, detailLine, messageCell, statusCell } from './sessions-cells.js';
import { findingsCount } from '../../core/findings.js';
import { isTerminal } from '../../core/status.js';
import type { ReviewView } from '../../db/repos/reviews.js';
import { findingLines, reviewHeading } from '../person/review-lines.js';
import type { CommandContext } from '../cli/types.js';

/** What the table reads besides the rows: pending approvals and live processes, by session id; reviews by origin. */
export interface TableSources {
  approvals: Map<string, ApprovalRow[]>;
  live: Map<string, LiveProcesses>;
  reviews: Map<string, ReviewView[]>;
}

/** Findings shown under a reviewed session per review; `klaude review <id> --show` prints them all. */
const FINDINGS_SHOWN = 5;

/** Width when stdout is not a terminal (a pipe, Claude's Bash tool): rows a reader can take whole. */
const PIPE_WIDTH = 100;

/** The terminal's width; in a pipe `COLUMNS` when set, else PIPE_WIDTH (claude wraps longer rows mid-word). */
export function listingWidth(ctx: CommandContext): number {
  if (ctx.stdout.isTTY) return ctx.stdout.columns ?? 0;
  const cols = Number(ctx.env.COLUMNS);
  return Number.isInteger(cols) && cols > 20 ? cols : PIPE_WIDTH;
}

/**
 * Pad every column but the last (cells are ids, statuses, types: one UTF-16 unit per character).
 * Cells are made safe to print: prompts, titles, texts, errors and activities are the agents'.
 */
function renderRows(cells: string[][]): string[] {
  // The cells as they are unless one holds something to sanitise (no copy of every row).
  const rows = cells.some((r) => r.some(hasUnsafe)) ? cells.map((r) => r.map(safeText)) : cells;
  const widths: number[] = [];
  for (const r of rows) for (let i = 0; i < r.length - 1; i++) widths[i] = Math.max(widths[i] ?? 0, r[i]!.length);
  return rows.map((r) => {
    let line = '';
    for (let i = 0; i < r.length - 1; i++) line += r[i]!.padEnd(widths[i]! + 2);
    return (line + r[r.length - 1]!).trimEnd();
  });
}

/**
 * One table line per session (a pending approval replaces its messages), plus with -v a detail
 * line under each; in `width` columns (0: any), the cell of a pending approval wrapped, the rest cut.
 */
export function tableLines(
  roots: TreeNode<SessionListRow>[],
  l: TableSources,
  o: { verbose: boolean; now: number; width: number },
): string[] {
  const { verbose, now } = o;
  const flat = flattenTree(roots);
  const reviewOf = reviewsByReviewer(l.reviews);
  const out: string[][] = [['ID', 'STATUS', 'TYPE', 'RUNTIME', 'AGE', 'ACTIVITY', 'TITLE → LAST MESSAGE']];
  for (const { item: r, prefix } of flat) {
    const asks = l.approvals.get(r.id)?.[0];
    const review = reviewOf.get(r.id);
    const what = asks ? approvalCell(asks, r.id) : review ? reviewCell(review) : messageCell(r);
    out.push([
      `${prefix}${shortId(r.id)}`,
      statusCell(r, l.live.get(r.id)),
      r.type === 'tui' ? 'claude' : r.type, // the interactive root: one name everywhere
      r.zone ? `${r.runtime}@${r.zone}` : r.runtime,
      age(r.createdAt, now),
      activityCell(r, now),
      what,
    ]);
  }
  if (o.width > 20) capActivity(out, o.width);
  const rendered = renderRows(out);
  const fit = (line: string): string => (o.width > 20 ? truncate(line, o.width) : line);
  const lastColumn = rendered[0]!.indexOf('TITLE');
  const lines: string[] = [fit(rendered[0]!)];
  flat.forEach(({ item: r, continuation }, i) => {
    const row = rendered[i + 1]!;
    if (o.width > 20 && l.approvals.has(r.id)) lines.push(...fitLastCell(row, lastColumn, o.width, continuation));
    else lines.push(fit(row));
    if (verbose) lines.push(fit(`${continuation}${safeText(detailLine(r))}`));
    for (const rv of l.reviews.get(r.id) ?? []) {
      if (rv.archivedAt !== null && !r.archivedAt) continue;
      lines.push(fit(`${continuation}  ${reviewHeading(rv)}`));
      const more = `: klaude review ${shortId(r.id)} --show`;
      lines.push(...findingLines(rv, { indent: `${continuation}    `, width: o.width, max: FINDINGS_SHOWN, more }));
    }
  });
  return lines;
}

const ACTIVITY_COLUMN = 5;
/** Columns the title and last message keep when a long activity would take the rest of the row. */
const TITLE_ROOM = 20;

/**
 * Cut the activity column so the title and last message keep TITLE_ROOM columns (at 80 columns a
 * long "Bash: …" activity left no title at all); never below the column's heading.
 */
function capActivity(rows: string[][], width: number): void {
  const col = ACTIVITY_COLUMN;
  let before = 0;
  for (let i = 0; i < col; i++) before += Math.max(...rows.map((r) => r[i]!.length)) + 2;
  const title = Math.max(...rows.slice(1).map((r) => r[r.length - 1]!.length), 0);
  const max = Math.max(rows[0]![col]!.length, width - before - 2 - Math.min(title, TITLE_ROOM));
  for (const r of rows.slice(1)) r[col] = truncate(r[col]!, max);
}

function reviewsByReviewer(byOrigin: Map<string, ReviewView[]>): Map<string, ReviewView> {
  const out = new Map<string, ReviewView>();
  for (const list of byOrigin.values()) for (const r of list) out.set(r.sessionId, r);
  return out;
}

/** A reviewer's own row: what it reviews and what it found, in place of its answer (a JSON block). */
function reviewCell(r: ReviewView): string {
  const what =
    r.findings !== null ? findingsCount(r.findings) : r.error && isTerminal(r.status) ? 'no findings read' : '';
  return `review of ${shortId(r.originId)}'s ${r.subject === 'diff' ? 'diff' : 'answer'}${what ? `: ${what}` : ''}`;
}

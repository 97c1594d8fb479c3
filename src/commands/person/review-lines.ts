/**
 * A review as text lines (`klaude review`, and under its origin in `klaude sessions`): a heading
 * with the reviewer, its state and its count, then one line per finding, high first. Untrusted
 * text (the reviewer's) is made safe to print here.
 */
import { shortId } from '../../core/ids.js';
import { bySeverity, findingPlace, findingsCount, reviewerName } from '../../core/findings.js';
import { isTerminal } from '../../core/status.js';
import type { ReviewView } from '../../db/repos/reviews.js';
import { safeText } from '../../lib/escapes.js';
import { wrapWords } from '../../lib/format.js';
import { truncate } from '../../logs/format.js';

/** `review by codex KKKK2222 (of its diff): 2 findings (1 high, 1 low) · sent`. */
export function reviewHeading(r: ReviewView): string {
  const of = r.subject === 'diff' ? 'of its diff' : 'of its answer';
  const head = `review by ${reviewerName(r)} ${shortId(r.sessionId)} (${of}${r.focus ? `, focus: ${truncate(r.focus, 40)}` : ''})`;
  let state: string;
  if (r.findings !== null) state = findingsCount(r.findings);
  else if (!isTerminal(r.status)) state = r.status === 'queued' ? 'queued' : 'reviewing…';
  else state = `no findings read: ${r.error ?? r.status}`;
  const sent = r.sentAt !== null ? ' · sent' : '';
  return safeText(`${head}: ${state}${sent}`);
}

export interface FindingLineOptions {
  indent: string;
  /** Columns (0: any): each line is cut to fit. */
  width: number;
  /** At most this many findings; the rest are counted (`… 3 more: klaude review <id> --show`). */
  max?: number;
  /** Said with the count of findings left out. */
  more?: string;
  /** Wrap each finding at spaces under its text instead of cutting it (`review --show`: every word). */
  wrap?: boolean;
}

/** One line per finding: `high    src/a.ts:12  text`. */
export function findingLines(r: ReviewView, o: FindingLineOptions): string[] {
  const all = bySeverity(r.findings ?? []);
  const shown = o.max !== undefined ? all.slice(0, o.max) : all;
  const placeWidth = Math.min(40, Math.max(0, ...shown.map((f) => findingPlace(f).length)));
  const fit = (s: string): string => (o.width > 20 ? truncate(s, o.width) : s);
  const lines = shown.flatMap((f) => {
    const place = findingPlace(f);
    const cell = place.length > placeWidth ? truncate(place, placeWidth) : place.padEnd(placeWidth);
    const lead = `${o.indent}${f.severity.padEnd(6)}  ${placeWidth ? `${cell}  ` : ''}`;
    return shape(lead, safeText(f.text.replace(/\s+/g, ' ').trim()), o, fit);
  });
  if (shown.length < all.length) lines.push(fit(`${o.indent}… ${all.length - shown.length} more${o.more ?? ''}`));
  if (r.summary && o.max === undefined)
    lines.unshift(...shape(`${o.indent}summary: `, safeText(r.summary.replace(/\s+/g, ' ')), o, fit));
  return lines;
}

/** `lead` then `text`: cut to the width, or (wrap) in lines under the text's column. */
function shape(lead: string, text: string, o: FindingLineOptions, fit: (s: string) => string): string[] {
  const room = o.width - lead.length;
  if (!o.wrap || o.width <= 20 || room < 20) return [fit(lead + text)];
  const [first = '', ...rest] = wrapWords(text, room);
  return [lead + first, ...rest.map((l) => ' '.repeat(lead.length) + l)];
}

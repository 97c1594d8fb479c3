/**
 * The reviews pane (R): the reviews of one session as log-pane lines, a heading per reviewer (the
 * chosen one marked ▶; ▾ open, ▸ folded to its heading) and, when open, its summary and findings,
 * high first, each coloured by severity and wrapped to the pane. Pure.
 */
import { shortId } from '../../core/ids.js';
import { bySeverity, findingPlace, findingsCount, reviewerName, type Severity } from '../../core/findings.js';
import { isTerminal } from '../../core/status.js';
import type { ReviewView } from '../../db/repos/reviews.js';
import type { SessionView } from '../../feeds/session-tree.js';
import { sanitize } from '../text.js';
import type { Tone } from '../theme.js';
import { wrapLogLines, type LogLine } from './event-lines.js';

const SEVERITY_TONE: Record<Severity, Tone> = { high: 'error', medium: 'update', low: 'text', info: 'meta' };

const flat = (s: string): string => sanitize(s).replace(/\s+/g, ' ').trim();

function heading(r: ReviewView, chosen: boolean, folded: boolean): LogLine {
  const of = r.subject === 'diff' ? 'of its diff' : 'of its answer';
  let state: string;
  if (r.findings !== null) state = findingsCount(r.findings);
  else if (!isTerminal(r.status)) state = r.status === 'queued' ? 'queued' : 'reviewing…';
  else state = 'no findings read';
  const sent = r.sentAt !== null ? ' · sent' : '';
  const text = `${chosen ? '▶' : ' '}${folded ? '▸' : '▾'} ${reviewerName(r)} ${shortId(r.sessionId)} · ${r.status} · ${of}: ${state}${sent}`;
  return { text, tone: chosen ? 'diffFile' : 'status', indent: 4 };
}

function body(r: ReviewView): LogLine[] {
  const out: LogLine[] = [];
  if (r.focus) out.push({ text: `    focus: ${flat(r.focus)}`, tone: 'meta', indent: 11 });
  if (r.summary) out.push({ text: `    ${flat(r.summary)}`, tone: 'text', indent: 4 });
  if (r.findings === null) {
    if (isTerminal(r.status)) out.push({ text: `    ${flat(r.error ?? r.status)}`, tone: 'error', indent: 4 });
    else out.push({ text: '    its findings come when it ends', tone: 'meta', indent: 4 });
  } else if (r.findings.length === 0) {
    out.push({ text: '    nothing to fix', tone: 'done', indent: 4 });
  }
  for (const f of bySeverity(r.findings ?? [])) {
    const place = findingPlace(f);
    out.push({
      text: `    ${f.severity.padEnd(6)} ${place ? `${flat(place)}  ` : ''}${flat(f.text)}`,
      tone: SEVERITY_TONE[f.severity],
      indent: 11,
    });
  }
  if (r.error && r.findings !== null) out.push({ text: `    last run: ${flat(r.error)}`, tone: 'meta', indent: 4 });
  return out;
}

export interface ReviewPaneInput {
  /** The reviewed session (undefined: not in the tree any more). */
  origin: SessionView | undefined;
  originId: string;
  reviews: readonly ReviewView[];
  cursor: number;
  folded: ReadonlySet<string>;
  width: number;
}

export function reviewPaneLines(p: ReviewPaneInput): LogLine[] {
  const o = p.origin;
  const name = o ? `${o.type === 'tui' ? 'claude' : o.type} ${shortId(o.id)} (${o.runtime})` : shortId(p.originId);
  if (p.reviews.length === 0) {
    return wrapLogLines(
      [
        { text: `no review of ${name} yet`, tone: 'meta' },
        {
          text: `+ starts one: another runtime reviews its diff (or its answer), read-only — as \`klaude review ${shortId(p.originId)}\``,
          tone: 'meta',
        },
      ],
      p.width,
    );
  }
  const n = p.reviews.length;
  const lines: LogLine[] = [
    {
      text: `${n} review${n === 1 ? '' : 's'} of ${name} · ] [ choose · z folds · S sends the findings to it · + another`,
      tone: 'meta',
    },
  ];
  const cursor = Math.min(p.cursor, n - 1);
  p.reviews.forEach((r, i) => {
    const folded = p.folded.has(r.sessionId);
    lines.push({ text: '', tone: 'text' }, heading(r, i === cursor, folded));
    if (!folded) lines.push(...body(r));
  });
  return wrapLogLines(lines, p.width);
}

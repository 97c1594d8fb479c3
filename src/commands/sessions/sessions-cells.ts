/**
 * The cells of a `klaude sessions` row: what a session was asked and said, what it is doing, its
 * status and where it is open, and the `-v` detail line. Text only; the table is sessions-table.ts.
 */
import { shortId } from '../../core/ids.js';
import { isTerminal } from '../../core/status.js';
import type { LiveProcesses, SessionListRow } from '../../db/repos/listing.js';
import { elapsed } from '../../lib/format.js';
import { progressLabel } from '../../core/progress.js';
import { formatCost, truncate } from '../../logs/format.js';

/** First `max` characters on one line (cut first: prompts can be long). */
function oneLine(s: string | null | undefined, max = 100): string {
  if (!s) return '';
  const cut = s.length > max ? s.slice(0, max) : s;
  return (cut.includes('\n') || cut.includes('\r') || cut.includes('\t') ? cut.replace(/\s+/g, ' ') : cut).trim();
}

export function messageCell(r: SessionListRow): string {
  // The person's title (`klaude rename`) replaces the prompt; `-v` and `--json` keep the prompt.
  const first = oneLine(r.name) || oneLine(r.prompt) || oneLine(r.title);
  const last = oneLine(r.lastText);
  const fork = r.forkedFrom ? `forked from ${shortId(r.forkedFrom)}: ` : '';
  if (first && last) return `${fork}${truncate(first, 48)} → ${truncate(last, 64)}`;
  return fork + truncate(first || last, 100);
}

/**
 * What a session is doing: a running one's elapsed time, progress and activity ("1m12s 2/5 Bash:
 * npm test"; core/progress.ts), a failed one's reason (or an idle one's, when its last interactive
 * turn failed). Empty otherwise.
 */
export function activityCell(
  r: Pick<SessionListRow, 'status' | 'activity' | 'runStartedAt' | 'updatedAt' | 'error'> &
    Partial<Pick<SessionListRow, 'progress' | 'type'>>,
  now: number,
): string {
  if (r.status === 'failed') return truncate(oneLine(r.error) || 'failed', 60);
  if (r.status === 'idle' && r.error) return truncate(`✗ ${oneLine(r.error)}`, 60);
  if (r.status !== 'running' && r.status !== 'waiting') return '';
  const since = elapsed(now - (r.runStartedAt ?? r.updatedAt));
  const progress = progressLabel(r.progress, r.type ?? '');
  const doing = oneLine(r.activity) || (r.status === 'waiting' ? 'waiting' : 'working');
  return truncate(`${since} ${progress ? `${progress} ` : ''}${doing}`, 72);
}

/**
 * The STATUS cell: the status, the queue place, a lowered (rate-limited) run limit of the runtime,
 * and where a session is open right now (`idle · pty`: talk's PTY host; `· open`: a klaude foreground); `· pinned`.
 */
export function statusCell(r: SessionListRow, p: LiveProcesses | undefined): string {
  return r.pinnedAt !== null ? `${placeCell(r, p)} · pinned` : placeCell(r, p);
}

function placeCell(r: SessionListRow, p: LiveProcesses | undefined): string {
  const queued = r.queuedFor ? `queued: ${r.queuedFor}` : `queued #${r.queuePosition}`;
  let cell = r.status === 'queued' && r.queuePosition ? queued : r.status;
  if (r.rateLimitMax !== null && (r.status === 'queued' || r.status === 'running' || r.status === 'pending'))
    cell += ` (rate-limited: ${r.runtime} max ${r.rateLimitMax})`;
  // Sandboxed is the rule: an agent outside the sandbox is the one to see, while it can act (-v keeps it after).
  if (r.sandbox?.startsWith('unsandboxed') && !isTerminal(r.status)) cell += ' · unsandboxed';
  if (p?.pty) return `${cell} · pty`;
  if (p?.claude && r.type !== 'tui') return `${cell} · open`;
  return cell;
}

/** A detail line under each session: Claude (native) id, model, pid, cost, worktree branch, log. */
export function detailLine(r: SessionListRow): string {
  const d = [`${r.runtime} id ${r.nativeSessionId ?? '-'}`];
  if (r.model) d.push(`model ${r.model}`);
  d.push(`pid ${r.pid ?? '-'}`, `cost ${r.costUsd !== null ? formatCost(r.costUsd) : '-'}`);
  if (r.worktreeBranch) d.push(`branch ${r.worktreeBranch}`);
  if (r.sandbox) d.push(r.sandbox);
  d.push(`log ${r.logPath ?? '-'}`);
  if (r.name && r.prompt) d.push(`prompt ${truncate(oneLine(r.prompt), 80)}`);
  return d.join('  ');
}

/** Small display helpers shared by the page's parts. */
import type { WebSession } from '../hub.js';
import { shortId } from '../../core/ids.js';

/** The id people see everywhere else (the last 8 characters). */
export const short = shortId;

export function clock(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const pad = (n: number): string => String(n).padStart(2, '0');
  return h > 0 ? `${h}:${pad(m)}:${pad(s % 60)}` : `${m}:${pad(s % 60)}`;
}

/** Tokens used, or nothing before the first (as the dashboard: "0 tok" on every new row is noise). */
export function tokens(s: Pick<WebSession, 'tokensIn' | 'tokensOut'>): string {
  const n = (s.tokensIn ?? 0) + (s.tokensOut ?? 0);
  if (n <= 0) return '';
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k tok` : `${n} tok`;
}

/**
 * The type as people know it: an interactive session (type `tui` inside) is a `claude` session, as
 * the dashboard and `klaude sessions` name it; an agent's type is its definition's name.
 */
export const typeName = (s: Pick<WebSession, 'type'>): string => (s.type === 'tui' ? 'claude' : s.type);

export const cost = (usd: number | null): string => (usd ? `$${usd.toFixed(usd < 1 ? 3 : 2)}` : '');

export const isLive = (s: Pick<WebSession, 'status'>): boolean =>
  s.status === 'running' || s.status === 'waiting' || s.status === 'pending' || s.status === 'queued';

/** Why a session needs the person, or null. */
export function needsYou(s: WebSession): 'approval' | 'waiting' | 'failed' | null {
  if (s.archivedAt) return null;
  if (s.approvals.length > 0) return 'approval';
  if (s.status === 'waiting') return 'waiting';
  if (s.status === 'failed') return 'failed';
  return null;
}

export const label = (s: WebSession): string => s.title ?? s.prompt?.split('\n')[0] ?? typeName(s);

/** How long ago, in the largest whole unit: "just now", "3m ago", "2h ago", "4d ago". */
export function ago(ms: number): string {
  const s = Math.floor(Math.max(0, ms) / 1000);
  if (s < 60) return 'just now';
  if (s < 3600) return `${Math.floor(s / 60)}m ago`;
  if (s < 86_400) return `${Math.floor(s / 3600)}h ago`;
  return `${Math.floor(s / 86_400)}d ago`;
}

/** A turn is running: the only time a running clock means something (an idle talk session has none). */
export const turnRunning = (s: Pick<WebSession, 'status' | 'runStartedAt'>): boolean =>
  (s.status === 'running' || s.status === 'waiting') && s.runStartedAt !== null;

/** The row's state: the status, or for a queued agent its place in the queue and a priority other than normal. */
export const stateText = (s: WebSession): string =>
  s.status === 'queued' && s.queuePosition
    ? `queued #${s.queuePosition}${s.priority ? ` · ${s.priority > 0 ? 'high' : 'low'}` : ''}`
    : s.status;

/** The row's time: the turn's clock while one runs, none while queued, else when it last moved. */
export function timeText(s: WebSession, now: number): string {
  if (s.status === 'queued') return '';
  if (turnRunning(s)) return clock(now - (s.runStartedAt ?? now));
  return ago(now - (s.endedAt ?? s.updatedAt));
}

/**
 * Each project's name: its folder name, or where two share one, the shortest tail of the path
 * that tells them apart ("work/app" and "old/app"), so a phone (no hover) can tell them apart too.
 */
export function projectNames(roots: readonly string[]): Map<string, string> {
  const parts = new Map(roots.map((r) => [r, r.split('/').filter(Boolean)]));
  const tail = (r: string, n: number): string => (parts.get(r) ?? []).slice(-n).join('/') || r;
  const out = new Map<string, string>();
  for (const r of roots) {
    const max = Math.max(1, parts.get(r)?.length ?? 1);
    let n = 1;
    while (n < max && roots.some((o) => o !== r && tail(o, n) === tail(r, n))) n++;
    out.set(r, n >= max && roots.some((o) => o !== r && tail(o, n) === tail(r, n)) ? r : tail(r, n));
  }
  return out;
}

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

export function tokens(s: Pick<WebSession, 'tokensIn' | 'tokensOut'>): string {
  const n = (s.tokensIn ?? 0) + (s.tokensOut ?? 0);
  return n >= 1000 ? `${(n / 1000).toFixed(1)}k tok` : `${n} tok`;
}

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

export const label = (s: WebSession): string => s.title ?? s.prompt?.split('\n')[0] ?? s.type;

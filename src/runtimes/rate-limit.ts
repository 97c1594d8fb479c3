/**
 * Rate limiting seen from a runtime: claude's stream-json `system/api_retry` lines with an HTTP
 * 429 (rate limited) or 529 (overloaded). The first one in a while lowers the runtime's run limit
 * for RATE_LIMIT_BACKOFF_MS (src/db/repos/queue.ts), and the session's log says so.
 */
import type { AgentEventInput } from '../core/events.js';
import type { Db } from '../db/client.js';
import { lowerLimit } from '../db/repos/queue.js';
import type { Config } from '../config/schema.js';
import { RATE_LIMIT_BACKOFF_MS, runLimits } from './queue.js';

/** `{status, reason}` when the line is an api_retry for rate limiting or overload; else null. */
export function rateLimitOf(line: string): { status: number; reason: string } | null {
  if (!line.includes('api_retry')) return null;
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return null;
  }
  if (o.type !== 'system' || o.subtype !== 'api_retry') return null;
  const status = Number(o.error_status);
  const text = typeof o.error === 'string' ? o.error : '';
  if (status === 429 || /rate.?limit/i.test(text)) return { status: 429, reason: 'rate limited (429)' };
  if (status === 529 || /overloaded/i.test(text)) return { status: 529, reason: 'overloaded (529)' };
  return null;
}

export class RateLimitWatch {
  private lastAt = 0;

  constructor(private readonly o: { db: Db; config: Config; runtime: string; write: (e: AgentEventInput) => void }) {}

  /** Look at one raw CLI line. */
  line(line: string, now: number = Date.now()): void {
    const hit = rateLimitOf(line);
    if (!hit || now - this.lastAt < RATE_LIMIT_BACKOFF_MS / 10) return;
    this.lastAt = now;
    const until = now + RATE_LIMIT_BACKOFF_MS;
    const low = lowerLimit(this.o.db, this.o.runtime, runLimits(this.o.config), until, hit.reason, now);
    const at = new Date(until).toTimeString().slice(0, 5);
    this.o.write({
      type: 'status',
      status: 'running',
      reason: `${hit.reason}: ${this.o.runtime} runs at most ${low.maxRunning} agent${low.maxRunning === 1 ? '' : 's'} at once until ${at}`,
    });
  }
}

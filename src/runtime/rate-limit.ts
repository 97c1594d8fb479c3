/**
 * Rate limiting seen from a runtime: `retry` events of kind rate_limit (429) or overloaded (529),
 * from claude's stream-json `system/api_retry`. The first one in a while lowers the runtime's run
 * limit for RATE_LIMIT_BACKOFF_MS (agent-ops/queue.ts; stored by db/repos/queue.ts), and the session's log says so.
 */
import type { AgentEventInput, EventOf } from '../core/events.js';
import type { Db } from '../db/client.js';
import { lowerLimit } from '../db/repos/queue.js';
import type { Config } from '../config/schema.js';
import { RATE_LIMIT_BACKOFF_MS, runLimits } from '../agent-ops/queue.js';

export class RateLimitWatch {
  private lastAt = 0;

  constructor(private readonly o: { db: Db; config: Config; runtime: string; write: (e: AgentEventInput) => void }) {}

  /** A `retry` event of the run. */
  retry(e: Pick<EventOf<'retry'>, 'kind'>, now: number = Date.now()): void {
    if (e.kind !== 'rate_limit' && e.kind !== 'overloaded') return;
    if (now - this.lastAt < RATE_LIMIT_BACKOFF_MS / 10) return;
    this.lastAt = now;
    const hit = { reason: e.kind === 'rate_limit' ? 'rate limited (429)' : 'overloaded (529)' };
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

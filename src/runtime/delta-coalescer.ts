/**
 * Keeps the log compact while text streams: claude sends a delta per token or so; the log gets at
 * most one `text_delta` (or `thinking_delta`) every DELTA_INTERVAL_MS per agent, carrying every
 * piece since the last one. The first piece after a quiet spell goes out at once (a follower sees
 * the agent start writing without delay). Any other event flushes what is pending first, so the
 * log keeps its order: pieces, then the whole `text` that closes them.
 */
import type { AgentEventInput } from '../core/events.js';

export const DELTA_INTERVAL_MS = 100;

type Delta = Extract<AgentEventInput, { type: 'text_delta' | 'thinking_delta' }>;

export class DeltaCoalescer {
  private pending: Delta | null = null;
  private timer: NodeJS.Timeout | null = null;
  private lastOut = 0;

  constructor(
    private readonly out: (e: Delta) => void,
    private readonly intervalMs = DELTA_INTERVAL_MS,
    private readonly now: () => number = Date.now,
  ) {}

  push(d: Delta): void {
    if (this.pending && this.pending.type !== d.type) this.flush();
    this.pending = this.pending ? { type: d.type, text: this.pending.text + d.text } : { ...d };
    if (this.timer) return;
    const wait = this.lastOut + this.intervalMs - this.now();
    if (wait <= 0) {
      this.flush();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
  }

  /** Write what is pending now (before any other event, and at the end of a run). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const p = this.pending;
    this.pending = null;
    if (!p) return;
    this.lastOut = this.now();
    this.out(p);
  }

  /** Drop what is pending (the run ended); no timer is left behind. */
  dispose(): void {
    this.flush();
  }
}

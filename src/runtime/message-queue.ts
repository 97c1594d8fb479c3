/**
 * Messages that arrived during a turn, sent together when the turn's `result` comes (claude would
 * merge queued stdin messages into one turn anyway, which makes "is the agent finished?"
 * unknowable from outside; queuing here keeps it exact). Each change is mirrored to the session's
 * record (`undelivered`, their texts), so a runtime killed with messages waiting loses none:
 * recovery sends them.
 */
import type { Outgoing } from './outgoing.js';

export class MessageQueue {
  private readonly items: Outgoing[] = [];

  constructor(private readonly persist: (texts: readonly string[]) => void) {}

  get length(): number {
    return this.items.length;
  }

  push(message: Outgoing): void {
    this.items.push(message);
    this.save();
  }

  /** The texts queued, in order, left in place. */
  peek(): string[] {
    return this.items.map((o) => o.text);
  }

  /** Everything queued, in order; the queue is empty after. */
  takeAll(): Outgoing[] {
    const taken = this.items.splice(0);
    if (taken.length) this.save();
    return taken;
  }

  private save(): void {
    try {
      this.persist(this.peek());
    } catch {
      /* the record is a safety net; the run goes on without it */
    }
  }
}

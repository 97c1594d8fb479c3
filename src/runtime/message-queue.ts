/**
 * Messages that arrived during a turn, sent together when the turn's `result` comes (claude would
 * merge queued stdin messages into one turn anyway, which makes "is the agent finished?"
 * unknowable from outside; queuing here keeps it exact). Each change is mirrored to the session's
 * record (`undelivered`), so a runtime killed with messages waiting loses none: recovery sends them.
 */
export class MessageQueue {
  private readonly items: string[] = [];

  constructor(private readonly persist: (texts: readonly string[]) => void) {}

  get length(): number {
    return this.items.length;
  }

  push(text: string): void {
    this.items.push(text);
    this.save();
  }

  /** What is queued, in order, left in place. */
  peek(): string[] {
    return [...this.items];
  }

  /** Everything queued, in order; the queue is empty after. */
  takeAll(): string[] {
    const texts = this.items.splice(0);
    if (texts.length) this.save();
    return texts;
  }

  private save(): void {
    try {
      this.persist(this.items);
    } catch {
      /* the record is a safety net; the run goes on without it */
    }
  }
}

/**
 * The cost of the claude turn running, as it grows: each model response's usage, priced
 * (claude/model-prices.ts), summed over the turn. claude's stream-json gives it per response
 * (seen with 2.1.197, `--include-partial-messages`):
 *
 *   stream_event message_start {message:{id, model, usage}}   the input side, as the response begins
 *   stream_event message_delta {usage}                          the final output count, as it ends
 *   assistant {message:{id, model, usage}}                      the same id once per content block,
 *                                                               usage as at message_start
 *
 * Responses of sub-agents (Task tool; `parent_tool_use_id` set) cost too and are counted. The
 * turn's `result` ends it: its `total_cost_usd` is the figure from then on.
 */
import { messageCostUsd, type MessageUsage } from '../../claude/model-prices.js';
import { isObj, str, type Json } from '../json-line.js';

export class TurnSpend {
  private readonly byMessage = new Map<string, number>();
  /** The response streaming now (message_delta names no id). */
  private current: { id: string; model: string; usage: MessageUsage } | null = null;
  private total = 0;

  constructor(private readonly report: (usd: number) => void) {}

  /** Look at one stream-json line; reports the turn's new total when it grew. */
  line(o: Json & { type: string }): void {
    if (o.type === 'result') return this.reset();
    if (o.type === 'stream_event' && isObj(o.event)) {
      const ev = o.event;
      if (ev.type === 'message_start' && isObj(ev.message)) this.start(ev.message);
      else if (ev.type === 'message_delta' && isObj(ev.usage) && this.current) {
        this.current.usage = { ...this.current.usage, ...ev.usage };
        this.price(this.current.id, this.current.model, this.current.usage);
      }
    } else if (o.type === 'assistant' && isObj(o.message)) {
      const id = str(o.message.id);
      // Seen already from its stream events (whose count is newer): nothing to add.
      if (id && !this.byMessage.has(id) && isObj(o.message.usage))
        this.price(id, str(o.message.model) ?? '', o.message.usage);
    }
  }

  private start(message: Json): void {
    const id = str(message.id);
    if (!id || !isObj(message.usage)) return;
    this.current = { id, model: str(message.model) ?? '', usage: { ...message.usage } };
    this.price(id, this.current.model, this.current.usage);
  }

  private price(id: string, model: string, usage: MessageUsage): void {
    const cost = messageCostUsd(model, usage);
    const was = this.byMessage.get(id) ?? 0;
    if (cost <= was) return;
    this.byMessage.set(id, cost);
    this.total += cost - was;
    this.report(this.total);
  }

  private reset(): void {
    this.byMessage.clear();
    this.current = null;
    this.total = 0;
  }
}

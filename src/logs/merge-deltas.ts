/**
 * Folding streamed pieces for views that keep events in memory (the dashboard's log pane):
 * consecutive `text_delta`s become one event with the text so far, and the whole `text` that
 * closes them replaces them. Pure; never mutates its input.
 */
import type { AgentEvent } from '../core/events.js';

/** `events` with `e` added: pieces joined, closed pieces replaced. Returns a new array. */
export function appendMerged(events: readonly AgentEvent[], e: AgentEvent): AgentEvent[] {
  const out = events.slice();
  pushMerged(out, e);
  return out;
}

/** The same, in place (for building a fresh array from many events). */
export function pushMerged(out: AgentEvent[], e: AgentEvent): void {
  const last = out[out.length - 1];
  if ((e.type === 'text_delta' || e.type === 'thinking_delta') && last?.type === e.type) {
    out[out.length - 1] = { ...last, text: last.text + e.text };
    return;
  }
  if (e.type === 'text' && last?.type === 'text_delta') out.pop();
  out.push(e);
}

/**
 * `klaude logs -n N`: the last N *readable entries* of a log, not its last N lines. A message
 * streamed as pieces is one entry (its `text_delta` lines and the whole `text` that closes them),
 * a run of thinking pieces is one, and lines that print nothing (usage, a plain `running` status)
 * count for nothing. The pieces of a closed message are left out, so its text prints once, whole;
 * an entry is never started in the middle of its pieces.
 */
import type { AgentEvent } from '../core/events.js';
import { createFormatter } from './format.js';
import { readTail, type TailResult } from './reader.js';

export interface ReadablePick {
  /** Index in the events given of the first event of the picked entries. */
  start: number;
  /** The events to print, from `start` on, without the pieces of closed messages. */
  events: AgentEvent[];
  /** Their indexes in the events given (to find their lines). */
  indexes: number[];
  /**
   * The n entries were found and the first of them is whole: false when fewer were found, or the
   * first is a run of pieces reaching index 0 (it may begin before the events given).
   */
  enough: boolean;
}

const isDelta = (e: AgentEvent): boolean => e.type === 'text_delta' || e.type === 'thinking_delta';

/**
 * Whether each event prints something by itself (deltas: see pickReadable), read in order like a
 * reader would. Texts are judged without formatting them (a last line may be 32 MiB): one with
 * something to show prints; an `[UPDATE]` event its text already showed does not.
 */
function printing(events: readonly AgentEvent[]): boolean[] {
  const fmt = createFormatter();
  let lastText = '';
  return events.map((e) => {
    if (isDelta(e)) return false;
    if (e.type === 'text') {
      lastText = e.text ?? '';
      return /\S/.test(lastText);
    }
    if (e.type === 'update') return !lastText.includes(`[UPDATE] ${e.text.trim()}`);
    return fmt.format(e) !== null;
  });
}

/** Where the run of pieces of the same kind that ends at `end` begins. */
function runStart(events: readonly AgentEvent[], end: number): number {
  let i = end;
  while (i > 0 && events[i - 1]!.type === events[end]!.type) i--;
  return i;
}

/** The last `n` readable entries of `events` (oldest first). */
export function pickReadable(events: readonly AgentEvent[], n: number): ReadablePick {
  const shows = printing(events);
  const closed = new Set<number>(); // pieces a whole `text` closes
  let start = events.length;
  let count = 0;
  let i = events.length - 1;
  while (i >= 0 && count < n) {
    const e = events[i]!;
    if (e.type === 'text' && i > 0 && events[i - 1]!.type === 'text_delta') {
      const from = runStart(events, i - 1);
      for (let j = from; j < i; j++) closed.add(j);
      if (shows[i]) count++;
      start = from;
      i = from - 1;
    } else if (isDelta(e)) {
      start = runStart(events, i);
      count++;
      i = start - 1;
    } else {
      if (shows[i]) count++;
      start = i;
      i--;
    }
  }
  const indexes: number[] = [];
  for (let j = start; j < events.length; j++) if (!closed.has(j)) indexes.push(j);
  return {
    start,
    events: indexes.map((j) => events[j]!),
    indexes,
    enough: count >= n && (start > 0 || events.length === 0 || !isDelta(events[0]!)),
  };
}

/**
 * The last `n` readable entries of a log file, reading backwards: a first guess of lines, more
 * while the entries found could begin further back (a long streamed message is many lines).
 */
export async function readReadableTail(file: string, n: number): Promise<{ tail: TailResult; pick: ReadablePick }> {
  let want = Math.max(64, n * 4);
  for (;;) {
    const tail = await readTail(file, want);
    const pick = pickReadable(tail.events, n);
    // Fewer lines than asked: the tail reached the file's start.
    if (pick.enough || tail.events.length < want) return { tail, pick };
    want *= 4;
  }
}

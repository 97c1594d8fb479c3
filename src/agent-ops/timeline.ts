/**
 * One klaude session, one timeline: the session log (headless runs, written by klaude) merged in
 * time order with Claude Code's transcripts of the turns that ran interactively (foreground root,
 * checkout, dashboard Enter, `talk`). `/clear` gives the session a new Claude id, hence a new
 * transcript file: followers find it through the session's links and go on with it.
 *
 * Transcripts are read once from the start, then followed with file notifications, reading only
 * the bytes added (logs/follow.ts); nothing polls.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { AgentEvent } from '../core/events.js';
import { followLog } from '../logs/follow.js';
import { readAll } from '../logs/reader.js';
import { createTranscriptNormaliser, type TranscriptNormaliser } from '../adapters/claude/transcript-normaliser.js';

/** Stable merge by `ts` (equal times keep `a` first: the log before the transcript). */
export function mergeByTime(a: readonly AgentEvent[], b: readonly AgentEvent[]): AgentEvent[] {
  if (b.length === 0) return a.slice();
  if (a.length === 0) return b.slice();
  const out: AgentEvent[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) out.push(b[j]!.ts < a[i]!.ts ? b[j++]! : a[i++]!);
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

export interface TranscriptHistory {
  events: AgentEvent[];
  /** Where each file was read up to (follow from there). */
  offsets: Map<string, number>;
  normaliser: TranscriptNormaliser;
}

/** Every interactive event of these transcripts, in time order, and where reading stopped. */
export async function readTranscripts(
  files: readonly string[],
  normaliser = createTranscriptNormaliser(),
): Promise<TranscriptHistory> {
  const offsets = new Map<string, number>();
  let events: AgentEvent[] = [];
  for (const f of files) {
    const mine: AgentEvent[] = [];
    let end = 0;
    for await (const l of readAll(f)) {
      end = l.end;
      for (const e of normaliser.line(l.line)) mine.push(e);
    }
    offsets.set(f, end);
    // Claude appends entries in the order its writes complete, not quite the order they were made
    // (an attachment made before the prompt lands after it, and a full test run printed a prompt
    // after its reply). Each entry's timestamp is when it was made: the conversation's order.
    mine.sort((x, y) => x.ts - y.ts);
    events = mergeByTime(events, mine);
  }
  return { events, offsets, normaliser };
}

/** A whole timeline (log + transcripts), oldest first. */
export async function readTimeline(log: string, transcripts: readonly string[]): Promise<AgentEvent[]> {
  const logEvents: AgentEvent[] = [];
  for await (const l of readAll(log)) logEvents.push(l.event);
  if (transcripts.length === 0) return logEvents;
  const t = await readTranscripts(transcripts);
  return mergeByTime(logEvents, t.events);
}

export interface TranscriptFollowOptions {
  /** Files already read (and to what offset); they are followed from there. */
  history: TranscriptHistory;
  /** The session's transcript files now (asked again when a new .jsonl appears next to them). */
  list: () => string[];
  /** `at`: the file and the byte offset just past the line the event came from (to resume there). */
  onEvent: (e: AgentEvent, at: { file: string; end: number }) => void;
  signal: AbortSignal;
}

const RECHECK_MS = 1000;

/**
 * Follow the transcripts until `signal` aborts: the known ones from where `history` stopped, and
 * any that the session gets later (a new Claude id after /clear), from their start.
 */
export function followTranscripts(opts: TranscriptFollowOptions): void {
  const { history, signal } = opts;
  const followed = new Set<string>();
  const dirWatchers = new Map<string, FSWatcher>();
  const checkedAt = new Map<string, number>();

  const start = (file: string, fromOffset: number): void => {
    if (followed.has(file) || signal.aborted) return;
    followed.add(file);
    watchDir(path.dirname(file));
    void followLog(file, {
      fromOffset,
      signal,
      onEvent: (_e, line, end) => {
        for (const ev of history.normaliser.line(line)) opts.onEvent(ev, { file, end });
      },
    }).catch(() => undefined);
  };

  const discover = (name: string): void => {
    const now = Date.now();
    if (now - (checkedAt.get(name) ?? 0) < RECHECK_MS) return;
    checkedAt.set(name, now);
    let files: string[];
    try {
      files = opts.list();
    } catch {
      return;
    }
    for (const f of files) start(f, 0);
  };

  const watchDir = (dir: string): void => {
    if (dirWatchers.has(dir)) return;
    try {
      const w = watch(dir, { persistent: false }, (_type, name) => {
        const n = name == null ? '' : String(name);
        if (n.endsWith('.jsonl') && !followed.has(path.join(dir, n))) discover(n);
      });
      w.on('error', () => undefined);
      dirWatchers.set(dir, w);
    } catch {
      /* not there yet: the file follower waits for it */
    }
  };

  signal.addEventListener(
    'abort',
    () => {
      for (const w of dirWatchers.values()) w.close();
      dirWatchers.clear();
    },
    { once: true },
  );
  for (const [file, offset] of history.offsets) start(file, offset);
}

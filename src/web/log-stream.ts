/**
 * A session's timeline for a page: the same as `klaude logs` (the session log merged in time with
 * Claude's transcripts of its interactive turns, agent-ops/timeline.ts), then followed live with
 * file notifications (logs/follow.ts).
 *
 * Resumable: where the page stands is a cursor — the log's byte offset and each transcript's,
 * `<log>.<t0>.<t1>…` (transcripts in the session's link order, which only grows). Every live event
 * carries the cursor just past it as its SSE id, and so does the end of the history; a page that
 * reconnects sends the last one it saw (`Last-Event-ID`) and gets only what was written after it,
 * from the log and the transcripts alike.
 */
import type { AgentEvent } from '../core/events.js';
import { sessionLogPath } from '../config/paths.js';
import type { HasSqlite } from '../db/connection.js';
import { transcriptsOf } from '../db/repos/transcripts.js';
import { followLog } from '../logs/follow.js';
import { readAll } from '../logs/reader.js';
import { followTranscripts, mergeByTime, type TranscriptHistory } from '../agent-ops/timeline.js';
import { createTranscriptNormaliser } from '../adapters/claude/transcript-normaliser.js';

/** What a timeline needs of a session (a row of the listing the pages get). */
export type TimelineSession = { id: string; type: string; projectId: string; logPath: string | null };

/** Where a page stands: the log's offset and each transcript's (by position in the session's list). */
export class TimelineCursor {
  constructor(
    public log = 0,
    readonly files: string[] = [],
    readonly offsets: number[] = [],
  ) {}

  /** `<log>` or `<log>.<t0>.<t1>…`; null for anything else (start over). */
  static parse(id: string | undefined): { log: number; transcripts: number[] } | null {
    if (id === undefined || !/^[0-9]+(\.[0-9]+)*$/.test(id)) return null;
    const [log, ...transcripts] = id.split('.').map(Number);
    return { log: log!, transcripts };
  }

  at(file: string, end: number): void {
    let i = this.files.indexOf(file);
    if (i === -1) i = this.files.push(file) - 1;
    this.offsets[i] = end;
  }

  toString(): string {
    return [this.log, ...this.files.map((_f, i) => this.offsets[i] ?? 0)].join('.');
  }
}

export interface TimelineStream {
  db: HasSqlite;
  home: string;
  logsDir: string | null;
  session: TimelineSession;
  /** The cursor the page last saw (its Last-Event-ID): only what came after it is sent. */
  resume?: string;
  /** Before a full history (not a resume): the page drops what it had. */
  onReset?: () => void;
  /** `id`: the cursor just past this event (live events), else undefined. */
  onEvent: (e: AgentEvent, id: string | undefined) => void;
  /** After the history (or what was missed), before the first live event; `id` is the cursor there. */
  onHistoryEnd?: (id: string) => void;
  signal: AbortSignal;
}

export function logFileOf(home: string, s: TimelineSession, logsDir: string | null): string {
  return s.logPath ?? sessionLogPath(home, s.projectId, s.id, logsDir);
}

/** The transcripts' events from where the cursor stands, in time order, and where reading stopped. */
async function readTranscriptsFrom(files: string[], cursor: TimelineCursor): Promise<TranscriptHistory> {
  const normaliser = createTranscriptNormaliser();
  const offsets = new Map<string, number>();
  let events: AgentEvent[] = [];
  for (const [i, f] of files.entries()) {
    const mine: AgentEvent[] = [];
    let end = cursor.offsets[i] ?? 0;
    for await (const l of readAll(f, { start: end })) {
      end = l.end;
      for (const e of normaliser.line(l.line)) mine.push(e);
    }
    offsets.set(f, end);
    cursor.at(f, end);
    // Claude appends entries in the order its writes complete; each entry's time is the conversation's order.
    mine.sort((x, y) => x.ts - y.ts);
    events = mergeByTime(events, mine);
  }
  return { events, offsets, normaliser };
}

/** Send the history (or, resuming, what was missed), then follow until aborted. */
export async function streamTimeline(o: TimelineStream): Promise<void> {
  const log = logFileOf(o.home, o.session, o.logsDir);
  const list = (): string[] => transcriptsOf(o.db, o.session);
  const from = TimelineCursor.parse(o.resume);
  const files = list();
  const cursor = new TimelineCursor(
    from?.log ?? 0,
    files.slice(),
    files.map((_f, i) => from?.transcripts[i] ?? 0),
  );
  if (!from) o.onReset?.();
  const history = await readTranscriptsFrom(files, cursor);
  const lines: AgentEvent[] = [];
  for await (const l of readAll(log, { start: cursor.log })) {
    lines.push(l.event);
    cursor.log = l.end;
  }
  for (const e of mergeByTime(lines, history.events)) o.onEvent(e, undefined);
  o.onHistoryEnd?.(cursor.toString());
  if (o.signal.aborted) return;
  followTranscripts({
    history,
    list,
    onEvent: (e, at) => {
      cursor.at(at.file, at.end);
      o.onEvent(e, cursor.toString());
    },
    signal: o.signal,
  });
  await followLog(log, {
    fromOffset: cursor.log,
    signal: o.signal,
    onEvent: (e, _line, end) => {
      cursor.log = end;
      o.onEvent(e, cursor.toString());
    },
  }).catch(() => undefined);
}

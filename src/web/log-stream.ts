/**
 * A session's timeline for a page: the same as `klaude logs` (the session log merged in time with
 * Claude's transcripts of its interactive turns, agent-ops/timeline.ts), then followed live with
 * file notifications (logs/follow.ts).
 *
 * Resumable: where the page stands is a cursor — the log's byte offset and each transcript's,
 * `<log>.<key>:<offset>.<key>:<offset>…`, each transcript named by a key of its path (not by its
 * place in the session's list, which a `/resume` of an older conversation reorders). Every live
 * event carries the cursor just past it as its SSE id, and so does the end of the history; a page
 * that reconnects sends the last one it saw (`Last-Event-ID`) and gets only what was written after
 * it, from the log and the transcripts alike (a transcript the cursor does not name, from its start).
 */
import { sha256Hex } from '../lib/sha256.js';
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

/** A transcript's name in a cursor: 12 hex digits of its path's SHA-256 (stable, short, no dots). */
export const transcriptKey = (file: string): string => sha256Hex(file).slice(0, 12);

/** Where a page stands: the log's offset and each transcript's, by the transcript's key. */
export class TimelineCursor {
  readonly offsets = new Map<string, number>();

  constructor(public log = 0) {}

  /** `<log>` or `<log>.<key>:<offset>…`; null for anything else (start over). */
  static parse(id: string | undefined): TimelineCursor | null {
    if (id === undefined || !/^[0-9]+(\.[0-9a-f]{12}:[0-9]+)*$/.test(id)) return null;
    const [log, ...parts] = id.split('.');
    const c = new TimelineCursor(Number(log));
    for (const p of parts) {
      const [key, offset] = p.split(':');
      c.offsets.set(key!, Number(offset));
    }
    return c;
  }

  /** Where reading `file` resumes (0: from its start). */
  of(file: string): number {
    return this.offsets.get(transcriptKey(file)) ?? 0;
  }

  at(file: string, end: number): void {
    this.offsets.set(transcriptKey(file), end);
  }

  toString(): string {
    return [String(this.log), ...[...this.offsets].map(([k, o]) => `${k}:${o}`)].join('.');
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
  for (const f of files) {
    const mine: AgentEvent[] = [];
    let end = cursor.of(f);
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
  const cursor = from ?? new TimelineCursor();
  // Keys of transcripts no longer listed are dropped: the id stays as long as the session's list.
  const listed = new Set(files.map(transcriptKey));
  for (const k of [...cursor.offsets.keys()]) if (!listed.has(k)) cursor.offsets.delete(k);
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

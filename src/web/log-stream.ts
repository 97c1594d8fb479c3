/**
 * A session's timeline for a page: the same as `klaude logs` (the session log merged in time with
 * Claude's transcripts of its interactive turns, agent-ops/timeline.ts), then followed live with
 * file notifications (logs/follow.ts). Each log event carries the byte offset just past its line:
 * a page that reconnects gives the last one it saw and gets only what came after.
 */
import type { AgentEvent } from '../core/events.js';
import { sessionLogPath } from '../config/paths.js';
import type { HasSqlite } from '../db/connection.js';
import { transcriptsOf } from '../db/repos/transcripts.js';
import { followLog } from '../logs/follow.js';
import { readAll } from '../logs/reader.js';
import { followTranscripts, mergeByTime, readTranscripts } from '../agent-ops/timeline.js';

/** What a timeline needs of a session (a row of the listing the pages get). */
export type TimelineSession = { id: string; type: string; projectId: string; logPath: string | null };

export interface TimelineStream {
  db: HasSqlite;
  home: string;
  logsDir: string | null;
  session: TimelineSession;
  /** Resume after this log offset (a reconnect): no history, the log from there. */
  fromOffset?: number;
  /** `offset`: where the log stands after this event (log events only). */
  onEvent: (e: AgentEvent, offset: number | null) => void;
  /** After the history, before the first live event. */
  onHistoryEnd?: () => void;
  signal: AbortSignal;
}

export function logFileOf(home: string, s: TimelineSession, logsDir: string | null): string {
  return s.logPath ?? sessionLogPath(home, s.projectId, s.id, logsDir);
}

/** Send the history (unless resuming), then follow until aborted. */
export async function streamTimeline(o: TimelineStream): Promise<void> {
  const log = logFileOf(o.home, o.session, o.logsDir);
  const list = (): string[] => transcriptsOf(o.db, o.session);
  let logEnd = o.fromOffset ?? 0;
  const history = await readTranscripts(o.fromOffset === undefined ? list() : []);
  if (o.fromOffset === undefined) {
    const lines: AgentEvent[] = [];
    const offsets = new Map<AgentEvent, number>();
    for await (const l of readAll(log)) {
      lines.push(l.event);
      offsets.set(l.event, l.end);
      logEnd = l.end;
    }
    for (const e of mergeByTime(lines, history.events)) o.onEvent(e, offsets.get(e) ?? null);
  }
  o.onHistoryEnd?.();
  if (o.signal.aborted) return;
  if (o.fromOffset === undefined) {
    followTranscripts({ history, list, onEvent: (e) => o.onEvent(e, null), signal: o.signal });
  }
  await followLog(log, {
    fromOffset: logEnd,
    signal: o.signal,
    onEvent: (e, _line, end) => o.onEvent(e, end),
  }).catch(() => undefined);
}

/**
 * `klaude logs` for a session that ran interactively: its log and Claude's transcripts as one
 * timeline (agent-ops/timeline.ts), printed whole or followed live.
 */
import type { AgentEvent } from '../../core/events.js';
import { openDb } from '../../db/client.js';
import { getSession, type SessionRow } from '../../db/repos/sessions.js';
import { followLog } from '../../logs/follow.js';
import { pickReadable } from '../../logs/readable-tail.js';
import { readAll } from '../../logs/reader.js';
import { transcriptsOf } from '../../db/repos/transcripts.js';
import { mergeByTime, readTranscripts, followTranscripts } from '../../agent-ops/timeline.js';

export interface TimelineRun {
  home: string;
  session: SessionRow;
  log: string;
  transcripts: string[];
  /** Print one event (`line`: as written in the session log; transcript events have none). */
  write: (e: AgentEvent, line: string | null) => void;
  /** Last N events only. */
  n?: number;
  follow: boolean;
  signal: AbortSignal;
}

/** The session's transcripts as the DB has them now (a /clear adds one). */
function currentTranscripts(home: string, session: SessionRow): () => string[] {
  return () => {
    const db = openDb(home);
    try {
      return transcriptsOf(db, getSession(db, session.id) ?? session);
    } finally {
      db.close();
    }
  };
}

/** Prints the history, then (with `follow`) everything new until aborted or the agent is done. */
export async function runTimeline(r: TimelineRun): Promise<'done' | 'aborted' | 'printed'> {
  const logLines: { e: AgentEvent; line: string }[] = [];
  let logEnd = 0;
  for await (const l of readAll(r.log)) {
    logLines.push({ e: l.event, line: l.line });
    logEnd = l.end;
  }
  const lineOf = new Map<AgentEvent, string>(logLines.map((x) => [x.e, x.line]));
  const history = await readTranscripts(r.transcripts);
  let all = mergeByTime(
    logLines.map((x) => x.e),
    history.events,
  );
  if (r.n !== undefined) all = pickReadable(all, r.n).events;
  for (const e of all) r.write(e, lineOf.get(e) ?? null);
  if (!r.follow) return 'printed';

  const inner = new AbortController();
  const stop = (): void => inner.abort();
  r.signal.addEventListener('abort', stop, { once: true });
  try {
    followTranscripts({
      history,
      list: currentTranscripts(r.home, r.session),
      onEvent: (e) => r.write(e, null),
      signal: inner.signal,
    });
    const end = await followLog(r.log, {
      fromOffset: logEnd,
      untilDone: r.session.type !== 'tui',
      signal: inner.signal,
      onEvent: (e, line) => r.write(e, line),
    });
    return end.reason === 'done' ? 'done' : 'aborted';
  } finally {
    inner.abort();
    r.signal.removeEventListener('abort', stop);
  }
}

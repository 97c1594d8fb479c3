/**
 * The supervisor's terminal (`klaude` with claude in the foreground) is told when an agent of this
 * project finishes, as the dashboard does: an agent that was at work (running, waiting — or pending
 * or queued, which may have run and ended between two looks) reaching done, failed, interrupted or
 * cancelled rings once per agent per ending: the bell and/or an OSC 9 notification (config
 * `ui.notify`), "klaude: general 8HJ2KD0P finished: done". Never text into claude's screen.
 *
 * Not rung: an agent going from idle to an end (a conversation someone closed), interactive roots
 * (type 'tui'), and sessions this supervisor has had in the foreground (`inFront`): the person was
 * there. No polling: each DB write (db/watch.ts) reads the rows of the project changed lately.
 */
import type { NotifyMode } from '../config/schema.js';
import { shortId } from '../core/ids.js';
import { isTerminal, type SessionStatus } from '../core/status.js';
import type { Db } from '../db/client.js';
import { sessionStates } from '../db/repos/sessions.js';
import { watchDbWrites } from '../db/watch.js';
import { noticeSequence } from './notice.js';

/**
 * Rows are re-read while their updated_at is this recent: a writer stamps the time before its
 * commit, which another connection may see a little later (a busy DB makes it wait).
 */
const SLACK_MS = 10_000;

export interface FinishNoticeOptions {
  db: Db;
  projectId: string;
  mode: NotifyMode;
  /** A session the person has in front of them (this supervisor's foreground, now or before): no ring. */
  inFront(sessionId: string): boolean;
  /** One write to the terminal (a whole sequence at once). */
  write(seq: string): void;
  onError?(err: unknown): void;
  /** The clock (tests). */
  now?(): number;
}

interface Seen {
  status: SessionStatus;
  endedAt: number | null;
}

/** Start watching; returns the stop function. Agents already ended at start do not ring. */
export function watchAgentFinishes(o: FinishNoticeOptions): () => void {
  if (o.mode === 'none' || o.db.path === ':memory:') return () => undefined;
  const now = o.now ?? Date.now;
  const startedAt = now();
  let since = startedAt - SLACK_MS;
  const seen = new Map<string, Seen>();
  for (const s of sessionStates(o.db, o.projectId, 'live')) seen.set(s.id, { status: s.status, endedAt: s.endedAt });
  const scan = (): void => {
    try {
      const at = now();
      for (const s of sessionStates(o.db, o.projectId, since)) {
        const before = seen.get(s.id);
        seen.set(s.id, { status: s.status, endedAt: s.endedAt });
        if (!isTerminal(s.status) || s.type === 'tui' || o.inFront(s.id)) continue;
        // Unknown: created and ended between two looks (or ended before we started: quiet).
        const ended = before
          ? isTerminal(before.status)
            ? before.endedAt !== s.endedAt // resumed and ended again between two looks
            : before.status !== 'idle'
          : s.createdAt >= startedAt;
        if (ended) o.write(noticeSequence(o.mode, `klaude: ${s.type} ${shortId(s.id)} finished: ${s.status}`));
      }
      since = at - SLACK_MS;
    } catch (err) {
      o.onError?.(err);
    }
  };
  return watchDbWrites(o.db.path, scan, o.onError);
}

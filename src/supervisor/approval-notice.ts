/**
 * The supervisor's terminal (`klaude` with claude in the foreground) hears about permission
 * requests of agents too. Claude's TUI owns the screen, so klaude writes no text into it: it
 * sends the terminal bell and/or an OSC 9 desktop notification (config `ui.notify`, as the
 * dashboard does) naming the agent and the call — "klaude: general 8HJ2KD0P needs approval:
 * Bash: npm test". The parent Claude itself gets `[NEEDS APPROVAL]` after its next tool call.
 *
 * No polling: each DB write (db/watch.ts) triggers one query of the project's pending requests.
 */
import type { NotifyMode } from '../config/schema.js';
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { projectPendingApprovals } from '../db/repos/approvals.js';
import { getSession } from '../db/repos/sessions.js';
import { watchDbWrites } from '../db/watch.js';
import { noticeSequence } from './notice.js';

export interface ApprovalNoticeOptions {
  db: Db;
  projectId: string;
  mode: NotifyMode;
  /** One write to the terminal (a whole sequence at once). */
  write(seq: string): void;
  onError?(err: unknown): void;
}

/** Start watching; returns the stop function. Requests already pending at start do not ring. */
export function watchApprovalRequests(o: ApprovalNoticeOptions): () => void {
  if (o.mode === 'none' || o.db.path === ':memory:') return () => undefined;
  const seen = new Set<number>();
  const scan = (ring: boolean): void => {
    try {
      for (const a of projectPendingApprovals(o.db, o.projectId)) {
        if (seen.has(a.id)) continue;
        seen.add(a.id);
        if (!ring) continue;
        const s = getSession(o.db, a.sessionId);
        const who = `${s?.type ?? 'agent'} ${shortId(a.sessionId)}`;
        o.write(noticeSequence(o.mode, `klaude: ${who} needs approval: ${a.toolName}: ${a.summary}`));
      }
    } catch (err) {
      o.onError?.(err);
    }
  };
  scan(false);
  return watchDbWrites(o.db.path, () => scan(true), o.onError);
}

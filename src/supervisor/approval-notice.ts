/**
 * The supervisor's terminal (`klaude` with claude in the foreground) hears about permission
 * requests of agents too. Claude's TUI owns the screen, so klaude writes no text into it: it
 * sends the terminal bell and/or an OSC 9 desktop notification (config `ui.notify`, as the
 * dashboard does) naming the agent and the call — "klaude: general 8HJ2KD0P needs approval:
 * Bash: npm test". The parent Claude itself gets `[NEEDS APPROVAL]` after its next tool call.
 *
 * No polling: a file notification on the DB's directory (any writer touches the WAL) triggers
 * one query of the project's pending requests, at most once per DEBOUNCE_MS.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { NotifyMode } from '../config/schema.js';
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { projectPendingApprovals } from '../db/repos/approvals.js';
import { getSession } from '../db/repos/sessions.js';

const DEBOUNCE_MS = 100;
const BEL = '\x07';
const osc9 = (text: string): string => `\x1b]9;${text.replace(/[\x00-\x1f\x7f-\x9f]/g, ' ')}\x07`;

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
        let seq = '';
        if (o.mode === 'bell' || o.mode === 'both') seq += BEL;
        if (o.mode === 'osc9' || o.mode === 'both') seq += osc9(`klaude: ${who} needs approval: ${a.toolName}: ${a.summary}`.slice(0, 200));
        o.write(seq);
      }
    } catch (err) {
      o.onError?.(err);
    }
  };
  scan(false);
  let timer: NodeJS.Timeout | null = null;
  const names = new Set([path.basename(o.db.path), `${path.basename(o.db.path)}-wal`]);
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(path.dirname(o.db.path), { persistent: false }, (_t, name) => {
      if (timer || (name !== null && !names.has(String(name)))) return;
      timer = setTimeout(() => {
        timer = null;
        scan(true);
      }, DEBOUNCE_MS);
    });
    watcher.on('error', (err) => o.onError?.(err));
  } catch (err) {
    o.onError?.(err);
  }
  return () => {
    if (timer) clearTimeout(timer);
    watcher?.close();
  };
}

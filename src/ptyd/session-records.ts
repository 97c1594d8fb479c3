/**
 * The PTY server's side of a session's records (raw SQL: db/repos/pty-records.ts): who else drives
 * the session (refusal), and what is written when its CLI exits.
 */
import { constants as osConstants } from 'node:os';
import { shortId } from '../core/ids.js';
import type { HasSqlite } from '../db/connection.js';
import { addEvent } from '../db/repos/events.js';
import { claimOf, currentRows, endRow, setRunState } from '../db/repos/pty-records.js';
import type { Logger } from '../lib/logger.js';
import { isSameProcess, liveRows } from '../lib/process.js';
import type { PtyExitInfo } from './pty-process.js';

/**
 * Who else drives this session right now (a live process row of another kind, or another PTY
 * server's row). Rows carrying `selfPid` are this server's: it knows its own sessions.
 */
export function busyReason(db: HasSqlite, sessionId: string, selfPid: number): string | null {
  const s = shortId(sessionId);
  const rows = liveRows(currentRows(db, sessionId));
  const fg = rows.find((p) => p.kind === 'claude');
  if (fg) return `${s} is open in a klaude foreground (claude pid ${fg.pid})`;
  const rt = rows.find((p) => p.kind === 'runtime');
  if (rt) return `${s} is running headless (runtime pid ${rt.pid})`;
  const other = rows.find((p) => p.kind === 'pty' && p.pid !== selfPid);
  if (other) return `${s} already runs in a PTY session (PTY server pid ${other.pid})`;
  return null;
}

/** A live conversation claim held by someone other than this process and `starterPid` (as ownership/conversation-claim.ts claimedByOther). */
export function claimedByOther(db: HasSqlite, sessionId: string, starterPid: number): string | null {
  const c = claimOf(db, sessionId);
  if (!c || c.holderPid === process.pid || c.holderPid === starterPid) return null;
  return isSameProcess(c.holderPid, c.holderStart) ? c.holder : null;
}

function signalName(n: number | null): string | null {
  if (!n) return null;
  return Object.entries(osConstants.signals).find(([, v]) => v === n)?.[0] ?? String(n);
}

/** The CLI exited: end the session's 'pty' row, the session is done (resumable), a pty.exit event. */
export function finishRecords(
  db: HasSqlite,
  log: Logger,
  s: { id: string; projectId: string },
  rowId: number,
  e: PtyExitInfo,
): void {
  try {
    endRow(db, rowId, { exitCode: e.signal ? null : e.exitCode, signal: signalName(e.signal) });
    setRunState(db, s.id, 'done', Date.now());
    addEvent(db, {
      projectId: s.projectId,
      klaudeSessionId: s.id,
      kind: 'pty.exit',
      payload: { code: e.exitCode, signal: signalName(e.signal) },
    });
  } catch (err) {
    log.error('recording the end of the PTY session failed', { err });
  }
}

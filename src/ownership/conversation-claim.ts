/**
 * One writer per conversation. Handing a conversation from one process to another (stop the
 * writer, start the next) leaves a gap in which no process row says who writes; two starters racing
 * through that gap — a checkout and `klaude message`'s resume, say — would both resume it. So
 * whoever is about to stop or start the process that writes a session's conversation — checkout,
 * dashboard Enter, `talk`, `message`'s resume, `start -c` — takes the session's claim first, in one
 * IMMEDIATE transaction with its own checks; a second taker gets E_SESSION_BUSY naming the holder.
 * The claim is held until the new writer's process row exists (that row then says who writes) and
 * is void once its holder process is gone.
 */
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { getClaim, releaseClaim, takeClaim, type ClaimHolder } from '../db/repos/claims.js';
import { KlaudeError } from '../lib/errors.js';
import { isSameProcess, processStartTime } from '../lib/process.js';

let selfStart: number | null | undefined;

/** This process as a claim holder, described as `what` ("a checkout in klaude …"). */
export function self(what: string): ClaimHolder {
  if (selfStart === undefined) selfStart = processStartTime(process.pid);
  return { holder: `${what} (pid ${process.pid})`, pid: process.pid, start: selfStart };
}

export const holderAlive = (pid: number, start: number | null): boolean => isSameProcess(pid, start);

/**
 * Take the claim on `sessionId` as `what`, with `check` run in the same transaction (it throws to
 * refuse). Throws E_SESSION_BUSY naming the live holder when someone else has it.
 */
export function claimConversation(db: Db, sessionId: string, what: string, check?: () => void): void {
  const other = takeClaim(db, sessionId, self(what), holderAlive, check);
  if (other) {
    throw new KlaudeError('E_SESSION_BUSY', `${shortId(sessionId)} is taken by ${other.holder}`, {
      hint: 'one process at a time writes a conversation: try again once that is done',
      details: { holder: other.holder, holderPid: other.holderPid },
    });
  }
}

export function releaseConversation(db: Db, sessionId: string, what: string): void {
  try {
    releaseClaim(db, sessionId, self(what));
  } catch {
    /* a claim left behind is void once this process is gone */
  }
}

/** What a checkout in this supervisor calls itself (taken and released by different modules). */
export const checkoutPurpose = (instanceId: string): string => `a checkout in klaude ${shortId(instanceId)}`;
export const RESUME_PURPOSE = 'a resume by klaude message';

/**
 * A live claim on the session held by someone other than this process and `also` (a spawner
 * handing its claim to the process it started); null when free.
 */
export function claimedByOther(db: Db, sessionId: string, also?: number): string | null {
  const c = getClaim(db, sessionId);
  if (!c || c.holderPid === process.pid || c.holderPid === also) return null;
  return holderAlive(c.holderPid, c.holderStart) ? c.holder : null;
}

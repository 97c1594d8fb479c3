/**
 * The one-writer-per-conversation claim (session_claims). Taken in one IMMEDIATE transaction
 * together with the caller's own checks, so two takers can never both pass; a claim whose holder
 * process is gone (pid + start time) is void. The liveness test is passed in: the DB layer does
 * not probe processes itself.
 */
import { and, eq } from 'drizzle-orm';
import { tx, type Db } from '../client.js';
import { sessionClaims, type ClaimRow } from '../schema.js';

export type { ClaimRow };

export interface ClaimHolder {
  /** Told to a second taker: "a checkout in klaude pid 123". */
  holder: string;
  pid: number;
  start: number | null;
}

export type Alive = (pid: number, start: number | null) => boolean;

/**
 * Take the claim on `sessionId` for `who`, running `check` inside the same transaction (it throws
 * to refuse). Returns the existing live claim of someone else instead of taking it; null = taken.
 * Re-taking one's own claim (same pid and start) refreshes it.
 */
export function takeClaim(
  db: Db,
  sessionId: string,
  who: ClaimHolder,
  alive: Alive,
  check?: () => void,
): ClaimRow | null {
  return tx(db, () => {
    const cur = db.orm.select().from(sessionClaims).where(eq(sessionClaims.klaudeSessionId, sessionId)).get();
    // The same process may hold claims for different purposes (a supervisor's checkout and its
    // message handler): only the same purpose re-takes its own claim.
    const mine = cur && cur.holderPid === who.pid && cur.holderStart === who.start && cur.holder === who.holder;
    if (cur && !mine && alive(cur.holderPid, cur.holderStart)) return cur;
    check?.();
    db.orm
      .insert(sessionClaims)
      .values({
        klaudeSessionId: sessionId,
        holder: who.holder,
        holderPid: who.pid,
        holderStart: who.start,
        createdAt: Date.now(),
      })
      .onConflictDoUpdate({
        target: sessionClaims.klaudeSessionId,
        set: { holder: who.holder, holderPid: who.pid, holderStart: who.start, createdAt: Date.now() },
      })
      .run();
    return null;
  });
}

/** Release `who`'s claim on the session (someone else's, or another purpose's, is left alone). */
export function releaseClaim(db: Db, sessionId: string, who: Pick<ClaimHolder, 'pid' | 'holder'>): void {
  db.orm
    .delete(sessionClaims)
    .where(
      and(
        eq(sessionClaims.klaudeSessionId, sessionId),
        eq(sessionClaims.holderPid, who.pid),
        eq(sessionClaims.holder, who.holder),
      ),
    )
    .run();
}

export function getClaim(db: Db, sessionId: string): ClaimRow | undefined {
  return db.orm.select().from(sessionClaims).where(eq(sessionClaims.klaudeSessionId, sessionId)).get();
}

import { and, desc, eq, isNull, ne, sql } from 'drizzle-orm';
import { tx, type Db } from '../client.js';
import { claudeSessionLinks, sessions, type ClaudeLinkRow, type LinkSource } from '../schema.js';

export type { ClaudeLinkRow, LinkSource };

export interface LinkInput {
  klaudeSessionId: string;
  claudeSessionId: string;
  transcriptPath?: string | null;
  source: LinkSource;
}

/**
 * Record that klaude session K now runs Claude session C (SessionStart hook, a launch with
 * --session-id, a headless runtime's init event). One IMMEDIATE transaction:
 * - upsert the link by Claude id. A repeat (hook confirming a link made at launch, a resume)
 *   reopens it (started_at bumped if it had ended) and refreshes source and transcript path; a Claude id already linked to another
 *   klaude session keeps its owner (the first session that ran it).
 * - close K's other open links (end_reason 'superseded': their SessionEnd was missed).
 * - set K's native_session_id to C (and transcript_path when given), so the current id is one
 *   read away; old ids keep resolving through the links.
 */
export function linkClaudeSession(db: Db, l: LinkInput): ClaudeLinkRow {
  return tx(db, () => {
    const now = Date.now();
    const transcript = l.transcriptPath ?? null;
    const row = db.orm
      .insert(claudeSessionLinks)
      .values({
        klaudeSessionId: l.klaudeSessionId,
        claudeSessionId: l.claudeSessionId,
        transcriptPath: transcript,
        source: l.source,
        startedAt: now,
      })
      .onConflictDoUpdate({
        target: claudeSessionLinks.claudeSessionId,
        set: {
          source: l.source,
          transcriptPath: sql`coalesce(${transcript}, ${claudeSessionLinks.transcriptPath})`,
          // reopening an ended link (a resume) makes it the latest one again
          startedAt: sql`CASE WHEN ${claudeSessionLinks.endedAt} IS NULL THEN ${claudeSessionLinks.startedAt} ELSE ${now} END`,
          endedAt: null,
          endReason: null,
        },
      })
      .returning()
      .get();
    db.orm
      .update(claudeSessionLinks)
      .set({ endedAt: now, endReason: 'superseded' })
      .where(
        and(
          eq(claudeSessionLinks.klaudeSessionId, l.klaudeSessionId),
          ne(claudeSessionLinks.claudeSessionId, l.claudeSessionId),
          isNull(claudeSessionLinks.endedAt),
        ),
      )
      .run();
    db.orm
      .update(sessions)
      .set({
        nativeSessionId: l.claudeSessionId,
        transcriptPath: sql`coalesce(${transcript}, ${sessions.transcriptPath})`,
        updatedAt: now,
      })
      .where(eq(sessions.id, l.klaudeSessionId))
      .run();
    return row;
  });
}

/**
 * Close the link (SessionEnd hook). Keeps the first ended_at/end_reason when called twice.
 * The session's native_session_id is left as is: the ended Claude session stays resumable.
 */
export function endClaudeLink(db: Db, claudeSessionId: string, reason?: string | null): ClaudeLinkRow | undefined {
  return db.orm
    .update(claudeSessionLinks)
    .set({
      endedAt: sql`coalesce(${claudeSessionLinks.endedAt}, ${Date.now()})`,
      endReason: sql`coalesce(${claudeSessionLinks.endReason}, ${reason ?? null})`,
    })
    .where(eq(claudeSessionLinks.claudeSessionId, claudeSessionId))
    .returning()
    .get();
}

/** The newest link of a session that has not ended, if any. */
export function activeLink(db: Db, klaudeSessionId: string): ClaudeLinkRow | undefined {
  return db.orm
    .select()
    .from(claudeSessionLinks)
    .where(and(eq(claudeSessionLinks.klaudeSessionId, klaudeSessionId), isNull(claudeSessionLinks.endedAt)))
    .orderBy(desc(claudeSessionLinks.startedAt), desc(claudeSessionLinks.id))
    .limit(1)
    .get();
}

/** The newest link of a session, ended or not. */
export function latestLink(db: Db, klaudeSessionId: string): ClaudeLinkRow | undefined {
  return db.orm
    .select()
    .from(claudeSessionLinks)
    .where(eq(claudeSessionLinks.klaudeSessionId, klaudeSessionId))
    .orderBy(desc(claudeSessionLinks.startedAt), desc(claudeSessionLinks.id))
    .limit(1)
    .get();
}

/** All links of a session, oldest first. */
export function linksOf(db: Db, klaudeSessionId: string): ClaudeLinkRow[] {
  return db.orm
    .select()
    .from(claudeSessionLinks)
    .where(eq(claudeSessionLinks.klaudeSessionId, klaudeSessionId))
    .orderBy(claudeSessionLinks.startedAt, claudeSessionLinks.id)
    .all();
}

export function findLinkByClaudeId(db: Db, claudeSessionId: string): ClaudeLinkRow | undefined {
  return db.orm.select().from(claudeSessionLinks).where(eq(claudeSessionLinks.claudeSessionId, claudeSessionId)).get();
}

import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import type { Db } from '../client.js';
import { agentUpdates, type UpdateRow } from '../schema.js';

export type { UpdateRow };

/** Store an `[UPDATE] …` a child reported for its parent. */
export function addUpdate(db: Db, u: { sessionId: string; parentSessionId: string; text: string }): UpdateRow {
  return db.orm
    .insert(agentUpdates)
    .values({ ...u, createdAt: Date.now() })
    .returning()
    .get();
}

/** Unacknowledged updates for a parent, oldest first (PostToolUse reads this on every tool call). */
export function pendingUpdates(db: Db, parentId: string): UpdateRow[] {
  return db.orm
    .select()
    .from(agentUpdates)
    .where(and(eq(agentUpdates.parentSessionId, parentId), isNull(agentUpdates.acknowledgedAt)))
    .orderBy(asc(agentUpdates.id))
    .all();
}

/**
 * Atomically claim a parent's pending updates: acknowledge them and return them, oldest first, in
 * one UPDATE … RETURNING, so two concurrent hooks never both inject the same update.
 */
export function takePendingUpdates(db: Db, parentId: string): UpdateRow[] {
  return db.orm
    .update(agentUpdates)
    .set({ acknowledgedAt: Date.now() })
    .where(and(eq(agentUpdates.parentSessionId, parentId), isNull(agentUpdates.acknowledgedAt)))
    .returning()
    .all()
    .sort((a, b) => a.id - b.id);
}

/**
 * Acknowledge updates; returns how many changed. Already-acknowledged ids are skipped, so of two
 * concurrent readers only one sees a non-zero count for the same update.
 */
export function ackUpdates(db: Db, ids: readonly number[]): number {
  if (ids.length === 0) return 0;
  let changed = 0;
  // SQLite's default limit is 32766 bound parameters; stay far below it.
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    changed += db.orm
      .update(agentUpdates)
      .set({ acknowledgedAt: Date.now() })
      .where(and(inArray(agentUpdates.id, chunk), isNull(agentUpdates.acknowledgedAt)))
      .run().changes;
  }
  return changed;
}

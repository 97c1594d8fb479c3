import { and, asc, eq, gt } from 'drizzle-orm';
import type { Db } from '../client.js';
import { events, type EventRow } from '../schema.js';

export type { EventRow };

export interface NewEvent {
  projectId?: string | null;
  klaudeSessionId?: string | null;
  /** e.g. 'hook.session_start', 'switch', 'agent.done'. */
  kind: string;
  payload?: unknown;
}

/** Append an audit event; returns its id (ids grow monotonically: use them as a cursor). */
export function addEvent(db: Db, e: NewEvent): number {
  const row = db.orm
    .insert(events)
    .values({
      projectId: e.projectId ?? null,
      klaudeSessionId: e.klaudeSessionId ?? null,
      kind: e.kind,
      payload: e.payload ?? null,
      createdAt: Date.now(),
    })
    .returning({ id: events.id })
    .get();
  return row.id;
}

/** A session's events after `afterId` (exclusive), oldest first. */
export function sessionEvents(db: Db, sessionId: string, o: { afterId?: number; limit?: number } = {}): EventRow[] {
  return db.orm
    .select()
    .from(events)
    .where(and(eq(events.klaudeSessionId, sessionId), gt(events.id, o.afterId ?? 0)))
    .orderBy(asc(events.id))
    .limit(o.limit ?? 1000)
    .all();
}

import { and, asc, desc, eq, gte, inArray, isNull, notInArray, or, sql } from 'drizzle-orm';
import { newId } from '../ids.js';
import { isTerminal, SESSION_STATUSES, type SessionStatus } from '../../core/status.js';
import { tx, type Db } from '../client.js';
import { claudeSessionLinks, sessions, type Runtime, type SessionRow } from '../schema.js';

export type { SessionRow };

export interface NewSession {
  id?: string;
  projectId: string;
  parentId?: string | null;
  instanceId?: string | null;
  /** Agent type; 'tui' for root sessions. */
  type: string;
  runtime?: Runtime;
  status?: SessionStatus;
  title?: string | null;
  prompt?: string | null;
  model?: string | null;
  nativeSessionId?: string | null;
  transcriptPath?: string | null;
  logPath?: string | null;
  metadata?: Record<string, unknown> | null;
  /** `klaude fork`: the session whose conversation this one forks. */
  forkedFrom?: string | null;
  /** `klaude review`: the session this one reviews. */
  reviewOf?: string | null;
  /** Run-queue priority (core/priority.ts levels; default 0, normal). */
  priority?: number;
}

/** Columns a caller may change; id, project and created_at are fixed. */
export type SessionPatch = Partial<Omit<SessionRow, 'id' | 'projectId' | 'createdAt'>>;

/** Insert a session (id: a new ULID unless given; status 'pending', runtime 'claude' by default). */
export function createSession(db: Db, s: NewSession): SessionRow {
  const now = Date.now();
  return db.orm
    .insert(sessions)
    .values({ ...s, id: s.id ?? newId(), createdAt: now, updatedAt: now })
    .returning()
    .get();
}

export function getSession(db: Db, id: string): SessionRow | undefined {
  return db.orm.select().from(sessions).where(eq(sessions.id, id)).get();
}

/**
 * Update the given columns (undefined keys are left alone, null clears) and bump updated_at unless
 * the patch sets it. Returns the new row, undefined when the id does not exist. Does not check
 * status transitions: callers use core/status applyTransition first.
 */
export function updateSession(db: Db, id: string, patch: SessionPatch): SessionRow | undefined {
  const set = Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)) as SessionPatch;
  return db.orm
    .update(sessions)
    .set({ ...set, updatedAt: set.updatedAt ?? Date.now() })
    .where(eq(sessions.id, id))
    .returning()
    .get();
}

/**
 * Archive several sessions (or bring them back) in one transaction: all or none. `check` sees the
 * rows as they are inside the transaction and may refuse by throwing (nothing is written then).
 */
export function setArchived(
  db: Db,
  ids: readonly string[],
  archived: boolean,
  check?: (rows: SessionRow[]) => void,
): SessionRow[] {
  return tx(db, () => {
    const rows = ids.map((id) => getSession(db, id)).filter((s): s is SessionRow => s !== undefined);
    check?.(rows);
    const at = archived ? Date.now() : null;
    return rows.map((s) => updateSession(db, s.id, { archivedAt: at }) ?? s);
  });
}

/**
 * Remove a session row; its links, processes and updates go with it (ON DELETE CASCADE), its
 * events and children stay (their reference is cleared). The caller removes the log file.
 */
export function deleteSession(db: Db, id: string): boolean {
  return db.orm.delete(sessions).where(eq(sessions.id, id)).run().changes > 0;
}

/** A project's sessions, oldest first (the tree is built from parent_id by the caller). */
export function listSessions(db: Db, f: { projectId: string; includeArchived?: boolean }): SessionRow[] {
  return db.orm
    .select()
    .from(sessions)
    .where(and(eq(sessions.projectId, f.projectId), f.includeArchived ? undefined : isNull(sessions.archivedAt)))
    .orderBy(asc(sessions.createdAt), asc(sessions.id))
    .all();
}

/** Direct children, oldest first, archived ones included. */
export function childrenOf(db: Db, parentId: string): SessionRow[] {
  return db.orm
    .select()
    .from(sessions)
    .where(eq(sessions.parentId, parentId))
    .orderBy(asc(sessions.createdAt), asc(sessions.id))
    .all();
}

/**
 * The session whose runtime-native id this is, exact match: its current native_session_id, or any
 * Claude session ever linked to it (an id from before /clear still finds its session). When a
 * native id is current on several sessions (rare: a TUI /resume of an agent's conversation), the
 * most recently updated one wins.
 */
export function findByNativeId(db: Db, nativeId: string): SessionRow | undefined {
  const linked = db.orm
    .select({ id: claudeSessionLinks.klaudeSessionId })
    .from(claudeSessionLinks)
    .where(eq(claudeSessionLinks.claudeSessionId, nativeId));
  return db.orm
    .select()
    .from(sessions)
    .where(or(eq(sessions.nativeSessionId, nativeId), inArray(sessions.id, linked)))
    .orderBy(sql`${sessions.nativeSessionId} = ${nativeId} DESC`, desc(sessions.updatedAt))
    .limit(1)
    .get();
}

/** What a status watcher needs of a session. */
export interface SessionState {
  id: string;
  type: string;
  status: SessionStatus;
  createdAt: number;
  endedAt: number | null;
}

/**
 * A project's sessions changed at or after `since` (updated_at, by the project/updated index), or
 * with `since: 'live'` those not ended yet, archived ones included.
 */
export function sessionStates(db: Db, projectId: string, since: number | 'live'): SessionState[] {
  const cols = {
    id: sessions.id,
    type: sessions.type,
    status: sessions.status,
    createdAt: sessions.createdAt,
    endedAt: sessions.endedAt,
  };
  const which =
    since === 'live'
      ? notInArray(sessions.status, SESSION_STATUSES.filter(isTerminal))
      : gte(sessions.updatedAt, since);
  return db.orm
    .select(cols)
    .from(sessions)
    .where(and(eq(sessions.projectId, projectId), which))
    .all();
}

/**
 * Messages a runtime holds for after the current turn, kept in the session's metadata
 * (`undelivered`) so a runtime that dies does not take them with it (recovery sends them on).
 */
export function setUndelivered(db: Db, id: string, texts: readonly string[]): void {
  tx(db, () => {
    const s = getSession(db, id);
    if (!s) return;
    const { undelivered: _old, ...rest } = s.metadata ?? {};
    updateSession(db, id, { metadata: texts.length ? { ...rest, undelivered: [...texts] } : rest });
  });
}

export function undeliveredOf(s: Pick<SessionRow, 'metadata'>): string[] {
  const u = (s.metadata as { undelivered?: unknown } | null)?.undelivered;
  return Array.isArray(u) ? u.filter((t): t is string => typeof t === 'string') : [];
}

import { and, eq, inArray, or, sql } from 'drizzle-orm';
import type { AnySQLiteColumn } from 'drizzle-orm/sqlite-core';
import { escapeLike, isUlid, matchIds, MIN_ID_CHARS, SHORT_ID_LENGTH, shortId, type IdCandidate } from '../../core/ids.js';
import { KlaudeError } from '../../lib/errors.js';
import type { Db } from '../client.js';
import { claudeSessionLinks, sessions, type SessionRow } from '../schema.js';

const LIST_HINT = 'run `klaude sessions` to list ids';

export interface ResolveOptions {
  /** Only sessions of this project. */
  projectId?: string;
}

export interface AmbiguousCandidate {
  id: string;
  shortId: string;
  type: string;
  status: string;
  nativeSessionId: string | null;
}

/**
 * The session an id typed by a person or Claude names: a full ULID, a full native id (current
 * native_session_id or any linked Claude session id, so pre-/clear ids still resolve), a unique
 * prefix of ≥4 characters of the displayed id (the last 8), or a unique prefix/suffix of ≥4
 * characters of either full id; case-insensitive (see matchIds).
 * Cost: one primary-key lookup for a full ULID; otherwise one scan of sessions and one of links
 * (LIKE, no N+1), plus one read of the result.
 * Throws E_SESSION_NOT_FOUND (also for input under 4 characters) or E_AMBIGUOUS_ID with
 * `details.candidates` (AmbiguousCandidate[]).
 */
export function resolveSession(db: Db, input: string, opts: ResolveOptions = {}): SessionRow {
  const q = input.trim();
  if (q.length < MIN_ID_CHARS) {
    throw new KlaudeError('E_SESSION_NOT_FOUND', `session id "${q}" is too short`, {
      hint: `use at least ${MIN_ID_CHARS} characters of the id; ${LIST_HINT}`,
    });
  }
  const inProject = (row: SessionRow | undefined) =>
    row && (!opts.projectId || row.projectId === opts.projectId) ? row : undefined;

  if (isUlid(q)) {
    const hit = inProject(db.orm.select().from(sessions).where(eq(sessions.id, q.toUpperCase())).get());
    if (hit) return hit;
  }

  const result = matchIds(q, candidates(db, q, opts.projectId));
  if (result.kind === 'matched') {
    const row = db.orm.select().from(sessions).where(eq(sessions.id, result.id)).get();
    if (row) return row;
  }
  if (result.kind === 'ambiguous') {
    const rows = db.orm
      .select({ id: sessions.id, type: sessions.type, status: sessions.status, nativeSessionId: sessions.nativeSessionId })
      .from(sessions)
      .where(inArray(sessions.id, result.ids))
      .orderBy(sessions.createdAt, sessions.id)
      .all();
    const list: AmbiguousCandidate[] = rows.map((r) => ({ ...r, shortId: shortId(r.id) }));
    const shown = list.slice(0, 10).map((c) => `${c.shortId} (${c.type}, ${c.status})`);
    const more = list.length > shown.length ? `, and ${list.length - shown.length} more` : '';
    throw new KlaudeError(
      'E_AMBIGUOUS_ID',
      `session id "${q}" matches ${list.length} sessions: ${shown.join(', ')}${more}`,
      { hint: 'type more characters of the id', details: { input: q, candidates: list } },
    );
  }
  throw new KlaudeError('E_SESSION_NOT_FOUND', `no session matches "${q}"`, { hint: LIST_HINT });
}

/** Sessions and links whose ids (or displayed ids) start or end with the input: one scan of each table. */
function candidates(db: Db, q: string, projectId: string | undefined): IdCandidate[] {
  const prefix = `${escapeLike(q)}%`;
  const suffix = `%${escapeLike(q)}`;
  const likes = (col: AnySQLiteColumn) =>
    or(sql`${col} LIKE ${prefix} ESCAPE '\\'`, sql`${col} LIKE ${suffix} ESCAPE '\\'`);
  const scope = projectId ? eq(sessions.projectId, projectId) : undefined;

  const byId = new Map<string, string[]>();
  const add = (id: string, native: string | null) => {
    let natives = byId.get(id);
    if (!natives) byId.set(id, (natives = []));
    if (native && !natives.includes(native)) natives.push(native);
  };
  const own = db.orm
    .select({ id: sessions.id, native: sessions.nativeSessionId })
    .from(sessions)
    .where(and(scope, or(likes(sessions.id), sql`substr(${sessions.id}, -${SHORT_ID_LENGTH}) LIKE ${prefix} ESCAPE '\\'`, likes(sessions.nativeSessionId))))
    .all();
  for (const r of own) add(r.id, r.native);
  const linked = db.orm
    .select({ id: claudeSessionLinks.klaudeSessionId, native: claudeSessionLinks.claudeSessionId })
    .from(claudeSessionLinks)
    .innerJoin(sessions, eq(sessions.id, claudeSessionLinks.klaudeSessionId))
    .where(and(scope, likes(claudeSessionLinks.claudeSessionId)))
    .all();
  for (const r of linked) add(r.id, r.native);
  return [...byId].map(([id, nativeIds]) => ({ id, nativeIds }));
}

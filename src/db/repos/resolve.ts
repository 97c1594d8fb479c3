import {
  escapeLike,
  isUlid,
  matchIds,
  MIN_ID_CHARS,
  SHORT_ID_LENGTH,
  shortId,
  type IdCandidate,
} from '../../core/ids.js';
import { KlaudeError } from '../../lib/errors.js';
import type { HasSqlite } from '../connection.js';
import type { SessionRow } from '../schema.js';
import { sessionById } from './session-row.js';

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
 * (LIKE, no N+1), plus one read of the result. Plain SQL: commands that open the DB without
 * drizzle (db/fast.ts) resolve ids too.
 * Throws E_SESSION_NOT_FOUND (also for input under 4 characters) or E_AMBIGUOUS_ID with
 * `details.candidates` (AmbiguousCandidate[]).
 */
export function resolveSession(db: HasSqlite, input: string, opts: ResolveOptions = {}): SessionRow {
  const q = input.trim();
  if (q.length < MIN_ID_CHARS) {
    throw new KlaudeError('E_SESSION_NOT_FOUND', `session id "${q}" is too short`, {
      hint: `use at least ${MIN_ID_CHARS} characters of the id; ${LIST_HINT}`,
    });
  }
  const inProject = (row: SessionRow | undefined) =>
    row && (!opts.projectId || row.projectId === opts.projectId) ? row : undefined;

  if (isUlid(q)) {
    const hit = inProject(sessionById(db, q.toUpperCase()));
    if (hit) return hit;
  }

  const result = matchIds(q, candidates(db, q, opts.projectId));
  if (result.kind === 'matched') {
    const row = sessionById(db, result.id);
    if (row) return row;
  }
  if (result.kind === 'ambiguous') {
    const rows = db.sqlite
      .prepare(
        `SELECT id, type, status, native_session_id AS nativeSessionId FROM sessions
         WHERE id IN (${result.ids.map(() => '?').join(', ')}) ORDER BY created_at, id`,
      )
      .all(...result.ids) as Omit<AmbiguousCandidate, 'shortId'>[];
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
function candidates(db: HasSqlite, q: string, projectId: string | undefined): IdCandidate[] {
  const prefix = `${escapeLike(q)}%`;
  const suffix = `%${escapeLike(q)}`;
  const likes = (col: string): string => `(${col} LIKE @prefix ESCAPE '\\' OR ${col} LIKE @suffix ESCAPE '\\')`;
  const scope = projectId ? 's.project_id = @projectId AND ' : '';
  const params = projectId ? { prefix, suffix, projectId } : { prefix, suffix };

  const byId = new Map<string, string[]>();
  const add = (id: string, native: string | null) => {
    let natives = byId.get(id);
    if (!natives) byId.set(id, (natives = []));
    if (native && !natives.includes(native)) natives.push(native);
  };
  const own = db.sqlite
    .prepare(
      `SELECT s.id, s.native_session_id AS native FROM sessions s
       WHERE ${scope}(${likes('s.id')} OR substr(s.id, -${SHORT_ID_LENGTH}) LIKE @prefix ESCAPE '\\' OR ${likes('s.native_session_id')})`,
    )
    .all(params) as { id: string; native: string | null }[];
  for (const r of own) add(r.id, r.native);
  const linked = db.sqlite
    .prepare(
      `SELECT l.klaude_session_id AS id, l.claude_session_id AS native FROM claude_session_links l
       JOIN sessions s ON s.id = l.klaude_session_id
       WHERE ${scope}${likes('l.claude_session_id')}`,
    )
    .all(params) as { id: string; native: string }[];
  for (const r of linked) add(r.id, r.native);
  return [...byId].map(([id, nativeIds]) => ({ id, nativeIds }));
}

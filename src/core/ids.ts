/**
 * Id matching: which session does a typed id mean? Pure; imports nothing of the project.
 *
 * A session is named by its klaude ULID or by any of its runtime-native ids (current and past
 * Claude UUIDs, Codex thread id, opencode ses_…). Accepted input, case-insensitive:
 * - the full ULID or a full native id (an exact match wins over partial ones);
 * - a prefix of at least MIN_ID_CHARS characters of the displayed id (`shortId`, the last 8), which
 *   wins over the partial matches below: people type what they see;
 * - a prefix or a suffix of at least MIN_ID_CHARS characters of either, if it names one session.
 */
export const MIN_ID_CHARS = 4;
export const ULID_LENGTH = 26;
const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

export interface IdCandidate {
  id: string;
  nativeIds: readonly string[];
}

export type MatchKind =
  'id' | 'short-prefix' | 'id-prefix' | 'id-suffix' | 'native' | 'native-prefix' | 'native-suffix';

export type IdMatch =
  | { kind: 'matched'; id: string; how: MatchKind }
  | { kind: 'ambiguous'; ids: string[] }
  | { kind: 'none'; reason: 'too-short' | 'no-match' };

export function isUlid(s: string): boolean {
  return ULID_RE.test(s);
}

/** How many characters of an id human output shows (everywhere: lists, notices, hints). */
export const SHORT_ID_LENGTH = 8;

/** Last 8 characters of a ULID: the random part, what human output shows. */
export function shortId(id: string): string {
  return id.length > SHORT_ID_LENGTH ? id.slice(-SHORT_ID_LENGTH) : id;
}

/**
 * Match `input` against candidates. Candidates may repeat an id (one row per native id); results
 * are per distinct id, in first-seen order.
 */
export function matchIds(input: string, candidates: readonly IdCandidate[]): IdMatch {
  const q = input.trim().toLowerCase();
  if (q.length < MIN_ID_CHARS) return { kind: 'none', reason: 'too-short' };

  const exact = new Map<string, MatchKind>();
  const shown = new Map<string, MatchKind>();
  const partial = new Map<string, MatchKind>();
  for (const c of candidates) {
    const id = c.id.toLowerCase();
    if (id === q) exact.set(c.id, 'id');
    else if (shortId(id).startsWith(q)) setOnce(shown, c.id, 'short-prefix');
    else if (id.startsWith(q)) setOnce(partial, c.id, 'id-prefix');
    else if (id.endsWith(q)) setOnce(partial, c.id, 'id-suffix');
    for (const n of c.nativeIds) {
      const native = n.toLowerCase();
      if (native === q) setOnce(exact, c.id, 'native');
      else if (native.startsWith(q)) setOnce(partial, c.id, 'native-prefix');
      else if (native.endsWith(q)) setOnce(partial, c.id, 'native-suffix');
    }
  }
  const pick = exact.size > 0 ? exact : shown.size > 0 ? shown : partial;
  if (pick.size === 0) return { kind: 'none', reason: 'no-match' };
  if (pick.size > 1) return { kind: 'ambiguous', ids: [...pick.keys()] };
  const [[id, how]] = [...pick.entries()] as [[string, MatchKind]];
  return { kind: 'matched', id, how };
}

function setOnce(m: Map<string, MatchKind>, id: string, how: MatchKind): void {
  if (!m.has(id)) m.set(id, how);
}

/** Escape `%`, `_` and `\` for a SQL `LIKE … ESCAPE '\'` pattern. */
export function escapeLike(s: string): string {
  return s.replace(/[\\%_]/g, (c) => `\\${c}`);
}

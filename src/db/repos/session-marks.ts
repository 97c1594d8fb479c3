/**
 * The marks a person puts on a session to tell it apart: its title (`klaude rename`) and its pin.
 * Raw SQL, so a FastDb (fast.ts) can write them too. Each bumps updated_at: the dashboards' change
 * marker (listing.ts projectChangeMarker) sees the write.
 */
import type { HasSqlite } from '../connection.js';

/** Set (or, with null, clear) the person's title. False when no such session. */
export function setSessionName(db: HasSqlite, id: string, name: string | null): boolean {
  const r = db.sqlite.prepare('UPDATE sessions SET name = ?, updated_at = ? WHERE id = ?').run(name, Date.now(), id);
  return r.changes > 0;
}

/** Pin (keeping the first pin's time) or unpin. False when no such session. */
export function setSessionPinned(db: HasSqlite, id: string, pinned: boolean): boolean {
  const now = Date.now();
  const r = pinned
    ? db.sqlite
        .prepare('UPDATE sessions SET pinned_at = coalesce(pinned_at, ?), updated_at = ? WHERE id = ?')
        .run(now, now, id)
    : db.sqlite.prepare('UPDATE sessions SET pinned_at = NULL, updated_at = ? WHERE id = ?').run(now, id);
  return r.changes > 0;
}

/** The person's titles of these sessions (unnamed ones are absent). One query per 500 ids. */
export function sessionNames(db: HasSqlite, ids: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  const unique = [...new Set(ids)];
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    const rows = db.sqlite
      .prepare(`SELECT id, name FROM sessions WHERE name IS NOT NULL AND id IN (${chunk.map(() => '?').join(',')})`)
      .all(...chunk) as { id: string; name: string }[];
    for (const r of rows) out.set(r.id, r.name);
  }
  return out;
}

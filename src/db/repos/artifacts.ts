/** On-stop artifacts (config `agents.onStop`): one per session and name, a newer answer replaces the older. */
import type { Db } from '../client.js';
import type { HasSqlite } from '../connection.js';

export interface Artifact {
  name: string;
  text: string;
  costUsd: number | null;
  createdAt: number;
}

export function saveArtifact(
  db: Db,
  a: { sessionId: string; name: string; text: string; costUsd?: number | null },
): void {
  db.sqlite
    .prepare(
      `INSERT INTO artifacts (session_id, name, text, cost_usd, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(session_id, name) DO UPDATE SET text = excluded.text, cost_usd = excluded.cost_usd, created_at = excluded.created_at`,
    )
    .run(a.sessionId, a.name, a.text, a.costUsd ?? null, Date.now());
}

/** A session's artifacts, in the order they were produced. */
export function artifactsOf(db: HasSqlite, sessionId: string): Artifact[] {
  return db.sqlite
    .prepare(
      'SELECT name, text, cost_usd AS costUsd, created_at AS createdAt FROM artifacts WHERE session_id = ? ORDER BY created_at, id',
    )
    .all(sessionId) as Artifact[];
}

/** Artifacts of many sessions as {name: text} maps (listings); sessions without any are absent. */
export function artifactMaps(db: HasSqlite, sessionIds: readonly string[]): Map<string, Record<string, string>> {
  const out = new Map<string, Record<string, string>>();
  for (let i = 0; i < sessionIds.length; i += 500) {
    const chunk = sessionIds.slice(i, i + 500);
    const rows = db.sqlite
      .prepare(
        `SELECT session_id AS id, name, text FROM artifacts WHERE session_id IN (${chunk.map(() => '?').join(',')}) ORDER BY created_at, id`,
      )
      .all(...chunk) as { id: string; name: string; text: string }[];
    for (const r of rows) out.set(r.id, { ...out.get(r.id), [r.name]: r.text });
  }
  return out;
}

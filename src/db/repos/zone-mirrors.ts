/**
 * The mirror rows of agents that run in zones (docs/zones.md): sessions whose metadata names a
 * zone (`metadata.zone.name`, core/zone.ts). Raw SQL on HasSqlite: the zone link and every command
 * that looks for live zones ask it.
 */
import type { HasSqlite } from '../connection.js';

const LIVE = "status IN ('pending', 'queued', 'running', 'waiting', 'idle')";
const ZONE = "json_extract(metadata, '$.zone.name')";

/** Ids of a zone's mirror rows: live ones (not ended), or all. */
export function zoneMirrorIds(db: HasSqlite, zone: string, o: { live: boolean }): string[] {
  const rows = db.sqlite
    .prepare(`SELECT id FROM sessions WHERE ${o.live ? `${LIVE} AND ` : ''}${ZONE} = ? ORDER BY created_at`)
    .all(zone) as { id: string }[];
  return rows.map((r) => r.id);
}

/** The zones that have a live mirror row now (the status index keeps this cheap for any command). */
export function liveZoneNames(db: HasSqlite): string[] {
  const rows = db.sqlite
    .prepare(`SELECT DISTINCT ${ZONE} AS zone FROM sessions WHERE ${LIVE} AND ${ZONE} IS NOT NULL`)
    .all() as { zone: string }[];
  return rows.map((r) => r.zone);
}

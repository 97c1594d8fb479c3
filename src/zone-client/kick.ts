/**
 * "Reconnect on any klaude command" (docs/zones.md): a command that opens the DB tells the link of
 * each zone with live agents here that someone is looking — a link waiting out its backoff tries
 * at once, a zone with no link gets one. One indexed query when no zone has live agents.
 */
import type { Config } from '../config/schema.js';
import type { HasSqlite } from '../db/connection.js';
import { liveZoneNames } from '../db/repos/zone-mirrors.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { kickZone } from './ask-link.js';

export function kickLiveZones(o: {
  db: HasSqlite;
  home: string;
  env: NodeJS.ProcessEnv;
  inv: KlaudeInvocation;
  config: Pick<Config, 'zones'>;
}): Promise<void> | null {
  let names: string[];
  try {
    names = liveZoneNames(o.db).filter((z) => o.config.zones[z]);
  } catch {
    return null; // a DB from before this klaude knew zones: nothing to kick
  }
  if (names.length === 0) return null;
  return Promise.all(names.map((zone) => kickZone({ home: o.home, env: o.env, inv: o.inv, zone }))).then(
    () => undefined,
  );
}

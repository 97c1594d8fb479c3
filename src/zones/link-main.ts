/**
 * `klaude __zone-link <zone>`: the entry of a zone's link (link.ts), started detached by
 * zone-client/ask-link.ts when a klaude command needs the zone and no link answers. Prints one ready
 * line ({ok, pid}, or {error}: E_ZONE_LINK_RUNNING when another link of the zone listens), then
 * lives while the zone has live agents here or messages held for it, and LINGER_MS after, so a
 * start soon after finds the connection up. SIGTERM ends it; the zone's agents run on.
 */
import { writeSync } from 'node:fs';
import { loadConfig } from '../config/config.js';
import { klaudeHome, logFilePath } from '../config/paths.js';
import { ZONE_NAME } from '../config/zones.js';
import { openDb } from '../db/client.js';
import { isKlaudeError, KlaudeError, type SerializedError } from '../lib/errors.js';
import { createFileLogger } from '../lib/logger.js';
import { zoneLinkSocket } from '../zone-client/paths.js';
import { LINK_RUNNING } from '../zone-client/link-protocol.js';
import { ZoneLink } from './link.js';
import { listenLink } from './link-server.js';

/** How long a link with nothing to do stays (its idle connection carries only ssh's keep-alives). */
export const LINGER_MS = 5 * 60_000;

function report(r: { ok: true; pid: number } | { ok: false; error: SerializedError }): void {
  try {
    writeSync(1, `${JSON.stringify(r)}\n`);
  } catch {
    /* the starter went away: nothing to tell */
  }
}

function zoneSpecOf(home: string, zone: string) {
  if (!ZONE_NAME.test(zone)) throw new KlaudeError('E_USAGE', 'usage: klaude __zone-link <zone> (internal)');
  const spec = loadConfig(home).config.zones[zone];
  if (!spec)
    throw new KlaudeError('E_ZONE_NOT_FOUND', `no zone '${zone}' in the config`, {
      hint: 'klaude zone add <name> <user@host> <path>',
    });
  return spec;
}

export async function zoneLinkMain(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const home = klaudeHome(env);
  const zone = argv[0] ?? '';
  const log = createFileLogger(logFilePath(home), 'zone-link', env).child(zone);
  process.stdout.on('error', () => undefined);
  try {
    const spec = zoneSpecOf(home, zone);
    const { config } = loadConfig(home);
    const db = openDb(home);
    const link = new ZoneLink({ home, zone, spec, env, log, db, config });
    let linger: NodeJS.Timeout | null = null;
    let done: () => void = () => undefined;
    const finished = new Promise<void>((r) => (done = r));
    const idleCheck = (): void => {
      if (linger) clearTimeout(linger);
      linger = setTimeout(() => {
        if (link.wanted() || server === 'running' || server.connections() > 0) return idleCheck();
        done();
      }, LINGER_MS);
    };
    const server = await listenLink(zoneLinkSocket(home, zone, env), (req, peer) => {
      idleCheck();
      return link.handle(req, peer);
    });
    if (server === 'running') {
      report({ ok: false, error: { code: LINK_RUNNING, message: `a link to zone ${zone} already runs` } });
      db.close();
      return 0;
    }
    report({ ok: true, pid: process.pid });
    log.info('zone link started', { ssh: spec.ssh });
    if (link.wanted()) link.conn.open().catch(() => undefined); // a failure schedules the next try
    idleCheck();
    process.on('SIGTERM', done);
    process.on('SIGINT', done);
    process.on('SIGHUP', () => undefined);
    await finished;
    log.info('zone link leaving');
    server.close();
    link.close();
    db.close();
    setTimeout(() => process.exit(0), 2000).unref();
    return 0;
  } catch (e) {
    log.error('zone link failed', { err: e });
    const err = isKlaudeError(e) ? e : new KlaudeError('E_INTERNAL', (e as Error)?.message ?? String(e));
    report({ ok: false, error: err.toJSON() });
    return 1;
  }
}

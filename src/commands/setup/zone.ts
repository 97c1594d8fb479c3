/**
 * `klaude zone add|list|check|setup|remove`: the machines agents can run on (docs/zones.md).
 * add/remove edit config.yaml; list shows each zone with its link (never starting one); check and
 * setup go over ssh (zones/zone-check.ts).
 */
import { loadConfig } from '../../config/config.js';
import { ensurePrivateDir, klaudeHome } from '../../config/paths.js';
import { ZONE_NAME } from '../../config/zones.js';
import { removeZone, writeZone } from '../../config/zone-edit.js';
import { openDb } from '../../db/client.js';
import { zoneMirrorIds } from '../../db/repos/zone-mirrors.js';
import { KlaudeError, usageError } from '../../lib/errors.js';
import { safeJson, safeText } from '../../lib/escapes.js';
import { table } from '../../lib/format.js';
import { askRunningLink } from '../../zone-client/ask-link.js';
import type { LinkStatus } from '../../zone-client/link-protocol.js';
import type { ZoneSpec } from '../../config/schema.js';
import type { CommandContext } from '../cli/types.js';

const SUBS = ['add', 'list', 'check', 'setup', 'remove'] as const;

function zoneName(name: string | undefined, sub: string): string {
  if (!name) throw usageError(`missing the zone's name`, `klaude zone ${sub} <name>`);
  if (!ZONE_NAME.test(name)) throw usageError(`'${name}' is not a zone name (letters, digits, _ and -)`);
  return name;
}

function add(ctx: CommandContext, home: string): number {
  const [, name, ssh, path] = ctx.input;
  const n = zoneName(name, 'add');
  if (!ssh || !path)
    throw usageError('missing the ssh destination or the path', 'klaude zone add <name> <user@host> <path>');
  const spec: ZoneSpec = { ssh, path };
  if (typeof ctx.flags.klaude === 'string') spec.klaude = ctx.flags.klaude;
  const opts = ctx.flags.sshOption as string[] | undefined;
  if (opts?.length) spec.sshOptions = opts;
  const file = writeZone(ensurePrivateDir(home), n, spec);
  ctx.stdout.write(`zone ${n}: ${safeText(ssh)}:${safeText(path)} (in ${file})\n`);
  ctx.stdout.write(`next: klaude zone check ${n}, then klaude start <type> "<prompt>" --zone ${n}\n`);
  return 0;
}

function remove(ctx: CommandContext, home: string): number {
  const n = zoneName(ctx.input[1], 'remove');
  if (!removeZone(home, n))
    throw new KlaudeError('E_ZONE_NOT_FOUND', `no zone '${n}' in the config`, {
      hint: '`klaude zone list` shows the zones there are',
    });
  ctx.stdout.write(`zone ${n} removed from the config (its agents' records here stay)\n`);
  return 0;
}

async function list(ctx: CommandContext, home: string): Promise<number> {
  const zones = loadConfig(home).config.zones;
  const db = openDb(home);
  const rows: { name: string; spec: ZoneSpec; live: number; link: LinkStatus | null }[] = [];
  try {
    for (const [name, spec] of Object.entries(zones)) {
      const link = await askRunningLink<LinkStatus>({ home, env: ctx.env, zone: name }, { op: 'status' });
      rows.push({ name, spec, live: zoneMirrorIds(db, name, { live: true }).length, link });
    }
  } finally {
    db.close();
  }
  if (ctx.flags.json === true) {
    ctx.stdout.write(
      `${safeJson({ zones: rows.map((r) => ({ name: r.name, ...r.spec, liveAgents: r.live, link: r.link })) })}\n`,
    );
    return 0;
  }
  if (rows.length === 0) {
    ctx.stdout.write('no zones: klaude zone add <name> <user@host> <path> adds one (docs/zones.md)\n');
    return 0;
  }
  const linkText = (l: LinkStatus | null): string => {
    if (!l) return 'no link';
    const rtt = l.state === 'connected' && l.rttMs !== null ? `, ${l.rttMs} ms round trip` : '';
    if (l.state !== 'offline') return `${l.state}${rtt}${l.outbox ? `, ${l.outbox} held` : ''}`;
    const next = l.nextTryAt ? `, next try in ${Math.max(0, Math.round((l.nextTryAt - Date.now()) / 1000))} s` : '';
    return `offline${l.lastError ? ` (${l.lastError})` : ''}${next}${l.outbox ? `, ${l.outbox} held` : ''}`;
  };
  const cells = rows.map((r) => [r.name, r.spec.ssh, r.spec.path, String(r.live), linkText(r.link)]);
  ctx.stdout.write(table([['ZONE', 'SSH', 'PATH', 'AGENTS', 'LINK'], ...cells]));
  return 0;
}

export async function run(ctx: CommandContext): Promise<number> {
  const sub = ctx.input[0] as (typeof SUBS)[number] | undefined;
  if (!sub || !SUBS.includes(sub))
    throw usageError(`unknown zone subcommand '${sub ?? ''}'`, 'klaude zone add|list|check|setup|remove');
  const home = klaudeHome(ctx.env);
  switch (sub) {
    case 'add':
      return add(ctx, home);
    case 'remove':
      return remove(ctx, home);
    case 'list':
      return list(ctx, home);
    case 'check':
    case 'setup': {
      const { zoneCheckCommand } = await import('./zone-check.js');
      return zoneCheckCommand(ctx, home, sub, zoneName(ctx.input[1], sub));
    }
  }
}

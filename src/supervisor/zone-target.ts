/**
 * A checkout of a zone's agent (docs/zones.md "Checkout and talk"): by default its conversation is
 * brought here (zones/bring-home.ts) and resumed in the foreground like any worktree agent's;
 * with `--remote` it stays over there and the foreground child is `ssh -t` into its CLI there,
 * asked of the zone first so a refusal comes before the person's claude is stopped.
 */
import { shortId } from '../core/ids.js';
import { zoneOf } from '../core/zone.js';
import type { SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { askZone, inZone } from '../zone-client/ask-link.js';
import { bringHome } from '../zones/bring-home.js';
import type { SupervisorContext } from './context.js';

export interface ZoneCheckout {
  force: boolean;
  remote: boolean;
}

/** Make a zone's agent ready to open; the note says what was done ('' for none). Other sessions: ''. */
export async function prepareZoneTarget(ctx: SupervisorContext, target: SessionRow, o: ZoneCheckout): Promise<string> {
  const zone = zoneOf(target);
  if (!zone) {
    if (o.remote)
      throw new KlaudeError('E_USAGE', `${shortId(target.id)} does not run in a zone: --remote is for a zone's agent`, {
        hint: `\`klaude checkout ${shortId(target.id)}\``,
      });
    return '';
  }
  try {
    return await prepare(ctx, target, zone.name, o);
  } catch (e) {
    throw inZone(e, zone.name);
  }
}

async function prepare(ctx: SupervisorContext, target: SessionRow, zone: string, o: ZoneCheckout): Promise<string> {
  const access = { home: ctx.home, env: ctx.env, inv: ctx.inv, zone };
  if (o.remote) {
    if (o.force)
      throw new KlaudeError('E_USAGE', '--remote opens an agent that is not running: it does not go with --force', {
        hint: `\`klaude interrupt ${shortId(target.id)}\` first, or check it out here with --force`,
      });
    await askZone(access, { op: 'open-check', sid: target.id });
    return `over ssh in zone ${zone}`;
  }
  const s = await bringHome(ctx, target, { force: o.force });
  return `brought here from zone ${zone}${s.worktreePath ? `: it goes on in ${s.worktreePath} (branch ${s.worktreeBranch})` : ''}`;
}

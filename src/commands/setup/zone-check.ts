/** `klaude zone check <name>` and `klaude zone setup <name>` (zones/zone-check.ts): print the checks, ✔/!/✗ with fixes. */
import { currentInvocation } from '../../claude/shim.js';
import { loadConfig } from '../../config/config.js';
import { writeZone } from '../../config/zone-edit.js';
import type { CheckResult } from '../../doctor/check.js';
import { KlaudeError } from '../../lib/errors.js';
import { safeJson, safeText } from '../../lib/escapes.js';
import { checkZone, setupZone } from '../../zones/zone-check.js';
import type { SshPlace } from '../../zones/ssh.js';
import type { CommandContext } from '../cli/types.js';
import { checkLines, checkWidth } from './check-lines.js';

function render(results: CheckResult[], width: number): string {
  return checkLines(results, width)
    .map((l) => `${l}\n`)
    .join('');
}

export async function zoneCheckCommand(
  ctx: CommandContext,
  home: string,
  sub: 'check' | 'setup',
  zone: string,
): Promise<number> {
  const spec = loadConfig(home).config.zones[zone];
  if (!spec)
    throw new KlaudeError('E_ZONE_NOT_FOUND', `no zone '${zone}' in the config`, {
      hint: 'klaude zone add <name> <user@host> <path>; klaude zone list shows the zones',
    });
  const place: SshPlace = { home, env: ctx.env, spec };
  // At a terminal ssh may ask (a passphrase, a host key): the connection it opens is then reused.
  const interactive = process.stdin.isTTY === true && ctx.flags.json !== true;
  let check = await checkZone(place, { interactive });
  if (sub === 'setup') {
    const { did, klaude } = await setupZone(place, currentInvocation(), ctx.cwd, check);
    if (klaude) {
      writeZone(home, zone, { ...spec, klaude });
      place.spec = { ...spec, klaude };
    }
    for (const d of did) ctx.stdout.write(`${safeText(d)}\n`);
    if (did.length === 0) ctx.stdout.write(`zone ${zone} has everything it needs already\n`);
    if (did.length > 0) check = await checkZone(place, { interactive: false });
  }
  const ok = check.results.every((r) => r.ok);
  if (ctx.flags.json === true)
    ctx.stdout.write(`${safeJson({ zone, ok, results: check.results, facts: check.facts })}\n`);
  else
    ctx.stdout.write(
      `${render(check.results, checkWidth(ctx))}${ok ? `zone ${zone} is ready` : `zone ${zone} is not ready`}\n`,
    );
  return ok ? 0 : 1;
}

/**
 * The command line the foreground child is launched with: claude with klaude's hooks, another
 * runtime's own interactive resume, or — for a zone's agent opened where it is (`klaude checkout
 * --remote`) — `ssh -t <zone>` into its CLI over there (zones/serve-open.ts is that end).
 */
import { getAdapter } from '../adapters/registry.js';
import { KlaudeError } from '../lib/errors.js';
import { zoneOpenCommand } from '../zone-client/ssh-args.js';
import type { SupervisorContext } from './context.js';
import { buildLaunchArgs } from './foreground-args.js';
import type { LaunchSpec } from './foreground.js';
import * as records from './launch-records.js';

/** Claude run here (not another runtime's CLI, not a conversation over ssh). */
export function isClaude(spec: LaunchSpec): boolean {
  return !spec.zone && (!spec.runtime || spec.runtime === 'claude');
}

/** claude's own command line; synchronous, so a launch has no gap in which a shutdown could slip by. */
export function claudeCommand(
  ctx: SupervisorContext,
  spec: LaunchSpec,
  settingsJson: string,
  first: boolean,
): { file: string; args: string[] } {
  // The person's --agent / --system-prompt are the root's persona, not a checked-out agent's.
  const root = records.isInteractiveRoot(ctx, spec.sessionId);
  const args = buildLaunchArgs(
    ctx.passthrough,
    { kind: spec.mode, claudeSessionId: spec.claudeSessionId },
    settingsJson,
    first,
    { root },
  );
  return { file: ctx.claudeBin, args };
}

/** A zone's agent over `ssh -t`, or another runtime's own interactive resume (`codex resume <id>`…). */
export async function otherCommand(
  ctx: SupervisorContext,
  spec: LaunchSpec,
): Promise<{ file: string; args: string[] }> {
  if (spec.zone) {
    const zone = ctx.config.zones[spec.zone];
    if (!zone) throw new KlaudeError('E_ZONE_NOT_FOUND', `no zone '${spec.zone}' in the config`);
    return zoneOpenCommand({ home: ctx.home, env: ctx.env, spec: zone }, spec.sessionId);
  }
  const adapter = await getAdapter(spec.runtime!);
  return adapter.interactiveResume(adapter.resolveBinary(ctx.config, ctx.env), spec.claudeSessionId);
}

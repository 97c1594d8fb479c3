import { loadConfig } from '../../config/config.js';
import { klaudeHome } from '../../config/paths.js';
import { controlRequest } from '../../control/client.js';
import { locateSupervisor } from '../../control/locate.js';
import { shortId } from '../../core/ids.js';
import type { CommandContext } from '../cli/types.js';
import { openDb } from '../../db/client.js';
import { resolveSession } from '../../db/repos/resolve.js';
import { zoneOf } from '../../core/zone.js';

export async function run(ctx: CommandContext): Promise<number> {
  const home = klaudeHome(ctx.env);
  const socket = await locateSupervisor({
    home,
    cwd: ctx.cwd,
    env: ctx.env,
    instance: ctx.flags.instance as string | undefined,
  });
  const timeoutSec = (ctx.flags.timeout as number | undefined) ?? undefined;
  const target = ctx.input[0];
  const res = await controlRequest(
    socket,
    'checkout',
    {
      ...(target ? { target } : {}),
      ...(ctx.env.KLAUDE_SESSION_ID ? { fromSessionId: ctx.env.KLAUDE_SESSION_ID } : {}),
      ...(timeoutSec !== undefined ? { timeoutMs: timeoutSec * 1000 } : {}),
      ...(ctx.flags.force === true ? { force: true } : {}),
      ...(ctx.flags.remote === true ? { remote: true } : {}),
    },
    // The supervisor may wait for the target's id, then for claude's grace period (and a zone).
    { timeoutMs: replyTimeoutMs(home, timeoutSec) + (inZone(home, ctx, target) ? ZONE_SLACK_MS : 0) },
  );
  if (ctx.flags.json) ctx.stdout.write(`${JSON.stringify(res)}\n`);
  else if ((res as { unchanged?: boolean }).unchanged) ctx.stdout.write(`already on ${shortId(res.sessionId)}\n`);
  else
    ctx.stdout.write(
      `checked out ${shortId(res.sessionId)} (claude session ${res.claudeSessionId}, pid ${res.pid})${res.note ? `: ${res.note}` : ''}\n`,
    );
  return 0;
}

/** A zone's agent is brought here over ssh (a forced one's run stopped first): minutes, not seconds. */
const ZONE_SLACK_MS = 240_000;

/** Whether the target is a zone's agent (a wrong id is the supervisor's to report). */
function inZone(home: string, ctx: CommandContext, target: string | undefined): boolean {
  if (!target) return false;
  try {
    const db = openDb(home);
    try {
      return zoneOf(resolveSession(db, target)) !== null;
    } finally {
      db.close();
    }
  } catch {
    return false;
  }
}

/** How long to wait for the supervisor's answer: its wait for the target, the grace, and slack. */
function replyTimeoutMs(home: string, timeoutSec: number | undefined): number {
  let wait = timeoutSec ?? 10;
  let grace = 1;
  try {
    const { config } = loadConfig(home);
    wait = timeoutSec ?? config['switch.targetTimeoutSeconds'];
    grace = config['switch.graceSeconds'];
  } catch {
    // a broken config.yaml is the supervisor's problem to report; keep the defaults here
  }
  return (wait + grace + 15) * 1000;
}

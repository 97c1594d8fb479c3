import { klaudeHome } from '../config/paths.js';
import { controlRequest } from '../control/client.js';
import { locateSupervisor } from '../control/locate.js';
import type { CommandContext } from './types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const home = klaudeHome(ctx.env);
  const socket = await locateSupervisor({ home, cwd: ctx.cwd, env: ctx.env, instance: ctx.flags.instance as string | undefined });
  const timeoutSec = (ctx.flags.timeout as number | undefined) ?? undefined;
  const target = ctx.input[0];
  const res = await controlRequest(
    socket,
    'checkout',
    {
      ...(target ? { target } : {}),
      ...(ctx.env.KLAUDE_SESSION_ID ? { fromSessionId: ctx.env.KLAUDE_SESSION_ID } : {}),
      ...(timeoutSec !== undefined ? { timeoutMs: timeoutSec * 1000 } : {}),
    },
    // The supervisor may wait for the target's id and for claude's grace period.
    { timeoutMs: ((timeoutSec ?? 10) + 15) * 1000 },
  );
  if (ctx.flags.json) ctx.stdout.write(`${JSON.stringify(res)}\n`);
  else if ((res as { unchanged?: boolean }).unchanged) ctx.stdout.write(`already on ${res.sessionId}\n`);
  else ctx.stdout.write(`checked out ${res.sessionId} (claude session ${res.claudeSessionId}, pid ${res.pid})\n`);
  return 0;
}

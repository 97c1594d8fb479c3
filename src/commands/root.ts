import { runSupervisor } from '../supervisor/supervisor.js';
import type { CommandContext } from './types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const resume = ctx.flags.resumeLast ? 'last' : (ctx.flags.resume as string | undefined);
  return runSupervisor({ cwd: ctx.cwd, env: ctx.env, claudeArgs: [...ctx.input, ...ctx.passthrough], resume });
}

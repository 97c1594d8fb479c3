import { runHook } from '../../hooks/run.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  return runHook(ctx.input, ctx.env);
}

/** `klaude deny <id> [--reason "<text>"] [--request <n>]`: see approve.ts. */
import { answer } from './approve.js';
import type { CommandContext } from '../cli/types.js';

export function run(ctx: CommandContext): Promise<number> {
  return answer(ctx, 'deny');
}

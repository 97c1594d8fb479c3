import { retire } from './archive.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  return retire(ctx, 'delete');
}

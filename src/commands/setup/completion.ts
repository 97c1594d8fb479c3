/** `klaude completion bash|zsh|fish`: print the shell's completion script (completion-scripts.ts). */
import { KlaudeError } from '../../lib/errors.js';
import { completionScript, SHELLS, type Shell } from './completion-scripts.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const shell = ctx.input[0] ?? '';
  if (!(SHELLS as readonly string[]).includes(shell))
    throw new KlaudeError('E_USAGE', `no completion for the shell '${shell}'`, {
      hint: `klaude completion ${SHELLS.join('|')}`,
    });
  ctx.stdout.write(completionScript(shell as Shell));
  return 0;
}

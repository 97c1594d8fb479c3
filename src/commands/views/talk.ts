/** `klaude talk <id> [--view]`: talk to a session in a PTY that keeps running after you detach. */
import { talk } from '../../pty/talk-session.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  return talk({
    target: ctx.input[0]!,
    view: ctx.flags.view === true,
    cwd: ctx.cwd,
    env: ctx.env,
    stdout: ctx.stdout,
    stderr: ctx.stderr,
  });
}

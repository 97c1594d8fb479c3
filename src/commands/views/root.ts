import { KlaudeError } from '../../lib/errors.js';
import { keepYoungGenerationSmall } from '../../lib/heap.js';
import { parseClaudePassthrough } from '../../supervisor/foreground-args.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const claudeArgs = [...ctx.input, ...ctx.passthrough];
  parseClaudePassthrough(claudeArgs); // bad claude arguments are reported first
  // Claude running `klaude` in its Bash tool, `klaude </dev/null`: the interactive claude can't
  // run, so refuse before anything is created or recorded.
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    throw new KlaudeError('E_USAGE', 'klaude needs a terminal (stdin and stdout must be a TTY)', {
      hint: 'run it in a terminal; inside Claude use `klaude start <type> "<prompt>"`, `klaude sessions`, `klaude checkout <id>`',
    });
  }
  // `--continue`/`-c` is claude's (and the design notes') spelling of --resume-last.
  const resume = ctx.flags.resumeLast || ctx.flags.continue ? 'last' : (ctx.flags.resume as string | undefined);
  keepYoungGenerationSmall();
  const { runSupervisor } = await import('../../supervisor/supervisor.js');
  return runSupervisor({ cwd: ctx.cwd, env: ctx.env, claudeArgs, resume });
}

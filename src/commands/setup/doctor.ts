import { currentInvocation } from '../../claude/shim.js';
import { runDoctor, type CheckResult } from '../../doctor/run-checks.js';
import { safeJson } from '../../lib/escapes.js';
import type { CommandContext } from '../cli/types.js';
import { checkLines, checkWidth } from './check-lines.js';

export async function run(ctx: CommandContext): Promise<number> {
  const uid = typeof process.getuid === 'function' ? process.getuid() : null;
  const results = await runDoctor({ env: ctx.env, cwd: ctx.cwd, inv: currentInvocation(), uid });
  if (ctx.flags.json) ctx.stdout.write(`${safeJson(results, 2)}\n`);
  else ctx.stdout.write(render(results, checkWidth(ctx)));
  return results.some((r) => !r.ok) ? 1 : 0;
}

/** One line per check; a fix goes on the line below, under the detail. */
function render(results: CheckResult[], width: number): string {
  const lines = checkLines(results, width);
  const bad = results.filter((r) => !r.ok).length;
  const warn = results.filter((r) => r.level === 'warn').length;
  const summary =
    bad > 0
      ? `${bad} problem(s) found${warn ? `, ${warn} warning(s)` : ''}`
      : `klaude looks healthy${warn ? ` (${warn} warning(s))` : ''}`;
  return `${lines.join('\n')}\n${summary}\n`;
}

/** `klaude merge <id> [--json]`: bring a worktree agent's branch into the current branch (git/merge.ts). */
import { shortId } from '../../core/ids.js';
import { closeAgentServices, openAgentServices } from '../../agent-ops/context.js';
import { findAgent } from '../../agent-ops/follow-agents.js';
import { mergeAgent } from '../../zones/diff-merge.js';
import { safeJson, safeText } from '../../lib/escapes.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const s = findAgent(svc, ctx.input[0]!);
    const r = await mergeAgent(svc, s, ctx.cwd);
    if (ctx.flags.json === true) {
      ctx.stdout.write(`${safeJson({ sessionId: s.id, shortId: shortId(s.id), ...r })}\n`);
      return 0;
    }
    // Branch and file names are the agent's.
    const say = (line: string): void => void ctx.stdout.write(safeText(line));
    const into = r.into ?? 'HEAD (detached)';
    if (r.committedWork) say(`committed the uncommitted work of ${s.type} ${shortId(s.id)} on ${r.branch} first\n`);
    if (r.result === 'up-to-date') say(`${r.branch} has nothing ${into} lacks: already merged\n`);
    else
      say(
        `merged ${r.branch} into ${into} (${r.files.length} file${r.files.length === 1 ? '' : 's'}: ${r.files.slice(0, 8).join(', ')}${r.files.length > 8 ? ', …' : ''})\n`,
      );
    say(`klaude worktree prune removes its worktree once you are done with it\n`);
    return 0;
  } finally {
    await closeAgentServices(svc);
  }
}

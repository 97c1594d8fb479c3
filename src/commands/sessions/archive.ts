/** `klaude archive <id…> [--restore] [--json]` and `klaude delete <id…> [--json]`. */
import { shortId } from '../../core/ids.js';
import { archive, deleteSessions, worktreeLine } from '../../agent-ops/archive.js';
import { closeAgentServices, openAgentServices } from '../../agent-ops/context.js';
import { safeJson } from '../../lib/escapes.js';
import type { CommandContext } from '../cli/types.js';

export async function run(ctx: CommandContext): Promise<number> {
  return retire(ctx, ctx.flags.restore === true ? 'restore' : 'archive');
}

export async function retire(ctx: CommandContext, what: 'archive' | 'restore' | 'delete'): Promise<number> {
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const out =
      what === 'delete'
        ? { sessions: deleteSessions(svc, ctx.input), worktrees: [] }
        : await archive(svc, ctx.input, { restore: what === 'restore' });
    const rows = out.sessions;
    if (ctx.flags.json === true) {
      const key = what === 'delete' ? 'deleted' : what === 'restore' ? 'restored' : 'archived';
      const worktrees = what === 'archive' ? { worktrees: out.worktrees } : {};
      ctx.stdout.write(`${safeJson({ [key]: rows.map((s) => s.id), ...worktrees })}\n`);
      return 0;
    }
    const done =
      what === 'delete'
        ? 'deleted (with their logs)'
        : what === 'restore'
          ? 'back in the tree'
          : 'archived (`klaude sessions --all` shows them)';
    ctx.stdout.write(
      `${rows.map((s) => `${shortId(s.id)} (${s.type === 'tui' ? 'claude' : s.type})`).join(', ')}: ${done}\n`,
    );
    for (const r of out.worktrees) ctx.stdout.write(`${worktreeLine(r)}\n`);
    return 0;
  } finally {
    await closeAgentServices(svc);
  }
}

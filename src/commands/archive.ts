/** `klaude archive <id…> [--restore] [--json]` and `klaude delete <id…> [--json]`. */
import { shortId } from '../core/ids.js';
import { archiveSessions, deleteSessions } from '../agent-ops/archive.js';
import { closeAgentServices, openAgentServices } from '../agent-ops/context.js';
import type { CommandContext } from './types.js';

export async function run(ctx: CommandContext): Promise<number> {
  return retire(ctx, ctx.flags.restore === true ? 'restore' : 'archive');
}

export async function retire(ctx: CommandContext, what: 'archive' | 'restore' | 'delete'): Promise<number> {
  const svc = openAgentServices({ env: ctx.env, cwd: ctx.cwd });
  try {
    const rows =
      what === 'delete' ? deleteSessions(svc, ctx.input) : archiveSessions(svc, ctx.input, what === 'restore');
    if (ctx.flags.json === true) {
      ctx.stdout.write(
        `${JSON.stringify({ [what === 'delete' ? 'deleted' : what === 'restore' ? 'restored' : 'archived']: rows.map((s) => s.id) })}\n`,
      );
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
    return 0;
  } finally {
    await closeAgentServices(svc);
  }
}

/** `klaude budget <id> [<usd>] [--json]`: a session's spend limit (covering its sub-agents): set, raised, removed (0), or shown. */
import { currentInvocation } from '../../claude/shim.js';
import { loadConfig } from '../../config/config.js';
import { klaudeHome } from '../../config/paths.js';
import { shortId } from '../../core/ids.js';
import { openDb } from '../../db/client.js';
import { setBudget, treeSpend } from '../../db/repos/budgets.js';
import { resolveSession } from '../../db/repos/resolve.js';
import { sessionById } from '../../db/repos/session-row.js';
import { usageError } from '../../lib/errors.js';
import { formatCost } from '../../logs/format.js';
import { startQueued } from '../../agent-ops/queue.js';
import type { CommandContext } from '../cli/types.js';
import { zoneOf } from '../../core/zone.js';
import { askZone } from '../../zone-client/ask-link.js';

export async function run(ctx: CommandContext): Promise<number> {
  const [input, amount] = ctx.input as [string, string | undefined];
  const usd = amount === undefined ? undefined : Number(amount.replace(/^\$/, ''));
  if (usd !== undefined && !(Number.isFinite(usd) && usd >= 0))
    throw usageError(`the budget must be an amount in USD, 0 or more (got "${amount}")`);
  const home = klaudeHome(ctx.env);
  const db = openDb(home);
  let out: { id: string; budgetUsd: number | null; spentUsd: number; started: string[] };
  try {
    const session = resolveSession(db, input);
    const id = session.id;
    let started: string[] = [];
    if (usd !== undefined) {
      const zone = zoneOf(session);
      // A zone's agent's runtime enforces its limit over there: set there first (so both or neither).
      if (zone)
        await askZone(
          { home, env: ctx.env, inv: currentInvocation(), zone: zone.name },
          { op: 'budget', sid: id, usd: usd === 0 ? null : usd },
        );
      setBudget(db, id, usd === 0 ? null : usd);
      // Agents queued because their tree was over this limit may start now.
      started = await startQueued({
        db,
        config: loadConfig(home).config,
        home,
        env: ctx.env,
        inv: currentInvocation(),
      });
    }
    out = { id, budgetUsd: sessionById(db, id)?.budgetUsd ?? null, spentUsd: treeSpend(db, id), started };
  } finally {
    db.close();
  }
  if (ctx.flags.json === true) {
    ctx.stdout.write(`${JSON.stringify(out)}\n`);
    return 0;
  }
  const limit = out.budgetUsd === null ? 'no budget of its own' : `budget ${formatCost(out.budgetUsd)}`;
  const over = out.budgetUsd !== null && out.spentUsd >= out.budgetUsd ? ' (reached: its next turn is refused)' : '';
  ctx.stdout.write(`${shortId(out.id)}: ${limit}, spent ${formatCost(out.spentUsd)} with its sub-agents${over}\n`);
  if (out.started.length > 0) ctx.stdout.write(`started from the queue: ${out.started.map(shortId).join(', ')}\n`);
  return 0;
}

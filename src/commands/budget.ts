/** `klaude budget <id> [<usd>] [--json]`: a session's spend limit (covering its sub-agents): set, raised, removed (0), or shown. */
import { klaudeHome } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { openDb } from '../db/client.js';
import { setBudget, treeSpend } from '../db/repos/budgets.js';
import { resolveSession } from '../db/repos/resolve.js';
import { sessionById } from '../db/repos/session-row.js';
import { usageError } from '../lib/errors.js';
import { formatCost } from '../logs/format.js';
import type { CommandContext } from './types.js';

export async function run(ctx: CommandContext): Promise<number> {
  const [input, amount] = ctx.input as [string, string | undefined];
  const usd = amount === undefined ? undefined : Number(amount.replace(/^\$/, ''));
  if (usd !== undefined && !(Number.isFinite(usd) && usd >= 0))
    throw usageError(`the budget must be an amount in USD, 0 or more (got "${amount}")`);
  const db = openDb(klaudeHome(ctx.env));
  let out: { id: string; budgetUsd: number | null; spentUsd: number };
  try {
    const id = resolveSession(db, input).id;
    if (usd !== undefined) setBudget(db, id, usd === 0 ? null : usd);
    out = { id, budgetUsd: sessionById(db, id)?.budgetUsd ?? null, spentUsd: treeSpend(db, id) };
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
  return 0;
}

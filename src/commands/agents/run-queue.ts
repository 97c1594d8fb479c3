/**
 * `klaude queue [--json]`: the run queue in the order it is served (higher priority first, first in
 * first out within a priority), with the run slots in use; `klaude queue move <id> --to N | --top |
 * --bottom | --priority high|normal|low` changes an entry's place (db/repos/queue-order.ts). One
 * queue for the whole klaude home, as the run limits are.
 */
import { currentInvocation } from '../../claude/shim.js';
import { loadConfig } from '../../config/config.js';
import { klaudeHome } from '../../config/paths.js';
import { shortId } from '../../core/ids.js';
import { priorityLevel, priorityName } from '../../core/priority.js';
import { shownTitle } from '../../core/session-title.js';
import { openDb, type Db } from '../../db/client.js';
import { budgetReached } from '../../db/repos/budgets.js';
import { listProjectRoots } from '../../db/repos/listing.js';
import { moveQueued, queuedInOrder, type QueueMove, type QueueTarget } from '../../db/repos/queue-order.js';
import { slotsHeld } from '../../db/repos/queue.js';
import { resolveSession } from '../../db/repos/resolve.js';
import { usageError } from '../../lib/errors.js';
import { safeJson } from '../../lib/escapes.js';
import { age, table } from '../../lib/format.js';
import { truncate } from '../../logs/format.js';
import { listingWidth } from '../sessions/sessions-table.js';
import { runLimits, startQueued } from '../../agent-ops/queue.js';
import { priorityFlag } from './start.js';
import type { CommandContext } from '../cli/types.js';

export interface QueueEntryJson {
  position: number;
  id: string;
  shortId: string;
  type: string;
  runtime: string;
  priority: string;
  queuedAt: number | null;
  projectRoot: string | null;
  title: string;
  /** Why it waits beyond its place (`over budget`), else null. */
  heldFor: string | null;
}

function entries(db: Db): QueueEntryJson[] {
  const roots = new Map(listProjectRoots(db).map((p) => [p.id, p.rootPath]));
  return queuedInOrder(db).map((e, i) => ({
    position: i + 1,
    id: e.id,
    shortId: shortId(e.id),
    type: e.type,
    runtime: e.runtime,
    priority: priorityName(e.priority),
    queuedAt: e.queuedAt,
    projectRoot: roots.get(e.projectId) ?? null,
    title: shownTitle(e),
    heldFor: budgetReached(db, e.id) ? 'over budget' : null,
  }));
}

export async function run(ctx: CommandContext): Promise<number> {
  const [sub, id, ...extra] = ctx.input;
  if (sub === undefined) return list(ctx);
  if (sub !== 'move' || id === undefined || extra.length > 0)
    throw usageError(
      `klaude queue takes no '${sub}'${id !== undefined && sub === 'move' ? ` '${extra[0]}'` : ''}`,
      'klaude queue | klaude queue move <id> --to <n>|--top|--bottom|--priority <level>',
    );
  return move(ctx, id);
}

function list(ctx: CommandContext): number {
  const home = klaudeHome(ctx.env);
  const { config } = loadConfig(home);
  const db = openDb(home);
  try {
    const queue = entries(db);
    const held = [...slotsHeld(db).values()].reduce((a, b) => a + b, 0);
    const limit = runLimits(config).global;
    if (ctx.flags.json === true) {
      ctx.stdout.write(`${safeJson({ running: held, maxRunning: limit || null, queue })}\n`);
      return 0;
    }
    const slots = `${held} running${limit ? ` of ${limit} (agents.maxRunning)` : ''}`;
    if (queue.length === 0) {
      ctx.stdout.write(`the run queue is empty; ${slots}\n`);
      return 0;
    }
    const projects = new Set(queue.map((e) => e.projectRoot));
    const now = Date.now();
    ctx.stdout.write(`${queue.length} queued, served in this order; ${slots}\n`);
    const width = listingWidth(ctx);
    const rows = table([
      ['#', 'ID', 'PRIORITY', 'TYPE', 'RUNTIME', 'WAITING', ...(projects.size > 1 ? ['PROJECT'] : []), 'TITLE'],
      ...queue.map((e) => [
        String(e.position),
        e.shortId,
        e.priority,
        e.type,
        e.runtime,
        `${e.queuedAt ? age(e.queuedAt, now) : '-'}${e.heldFor ? ` (${e.heldFor})` : ''}`,
        ...(projects.size > 1 ? [e.projectRoot ?? '-'] : []),
        truncate(e.title.replace(/\s+/g, ' '), 60),
      ]),
    ]);
    // Cut to the terminal, as `klaude sessions` is: a wrapped row reads as two entries.
    const fitted = rows.split('\n').map((l) => (width > 20 ? truncate(l, width) : l));
    ctx.stdout.write(fitted.join('\n'));
    return 0;
  } finally {
    db.close();
  }
}

/** Where --to/--top/--bottom put it (null: none given, only --priority). */
function targetOf(ctx: CommandContext): QueueTarget | null {
  const to = ctx.flags.to;
  const given = [to !== undefined, ctx.flags.top === true, ctx.flags.bottom === true].filter(Boolean).length;
  if (given > 1) throw usageError('give one of --to, --top and --bottom', '--to 1 is the same as --top');
  if (ctx.flags.top === true) return { kind: 'top' };
  if (ctx.flags.bottom === true) return { kind: 'bottom' };
  if (to === undefined) return null;
  if (typeof to !== 'number' || !Number.isInteger(to) || to < 1)
    throw usageError(
      `--to is a place in the queue, 1 or more (got ${String(to)})`,
      '`klaude queue` shows the places; --top or --bottom go to either end',
    );
  return { kind: 'to', position: to };
}

async function move(ctx: CommandContext, input: string): Promise<number> {
  const target = targetOf(ctx);
  const level = ctx.flags.priority === undefined ? null : priorityLevel(priorityFlag(ctx.flags.priority));
  if (!target && level === null)
    throw usageError('say where: --to <n>, --top, --bottom or --priority <level>', 'klaude queue move 7XQ2 --top');
  const home = klaudeHome(ctx.env);
  const db = openDb(home);
  let moved: QueueMove;
  let started: string[];
  try {
    moved = moveQueued(db, resolveSession(db, input).id, target, level);
    // A runtime at its own limit lets others by: a new order may start one now.
    started = await startQueued({ db, config: loadConfig(home).config, home, env: ctx.env, inv: currentInvocation() });
  } finally {
    db.close();
  }
  if (ctx.flags.json === true) {
    ctx.stdout.write(`${JSON.stringify({ ...moved, started })}\n`);
    return 0;
  }
  const level2 = moved.priority !== moved.was ? ` (priority ${moved.was} → ${moved.priority})` : '';
  const where = moved.from === moved.to ? `stays #${moved.to}` : `moved from #${moved.from} to #${moved.to}`;
  ctx.stdout.write(`${shortId(moved.id)} ${where} in the run queue${level2}\n`);
  if (started.length > 0) ctx.stdout.write(`started from the queue: ${started.map(shortId).join(', ')}\n`);
  return 0;
}

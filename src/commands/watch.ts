/**
 * `klaude watch [id…] [--once] [--json] [--filter re]`: the `[UPDATE]` channel from sub-agents.
 *
 * Whose updates: those for the named sessions (their children's updates), else for
 * $KLAUDE_SESSION_ID (the Claude running this), and those are acknowledged as they are printed
 * (delivered: the PostToolUse hook will not inject them again). With neither, every pending update
 * of the project is shown without acknowledging it (they stay for their parent Claude).
 *
 * Live: wakes on file-system notifications of the database directory (every committed write
 * touches sessions.db-wal), so an update is printed as soon as its row exists, whichever process
 * stored it. No timers.
 */
import path from 'node:path';
import { loadConfig } from '../config/config.js';
import { klaudeHome, projectHash, projectRoot } from '../config/paths.js';
import type { HasSqlite } from '../db/connection.js';
import { openDb } from '../db/client.js';
import { watchDbWrites } from '../db/watch.js';
import { projectPendingUpdates, sessionExists } from '../db/repos/listing.js';
import { KlaudeError, usageError } from '../lib/errors.js';
import { safeJson } from '../lib/escapes.js';
import { formatTime } from '../logs/format.js';
import {
  claimUpdates,
  describeUpdates,
  formatUpdateLine,
  pendingUpdatesFor,
  type UpdateView,
} from '../logs/updates.js';
import { reconcile } from '../ownership/reconcile.js';
import { findSession } from './logs.js';
import { exitQuietlyOnBrokenPipe } from './output.js';
import type { CommandContext } from './types.js';

function parseFilter(ctx: CommandContext): RegExp | undefined {
  if (typeof ctx.flags.filter !== 'string' || ctx.flags.filter === '') return undefined;
  try {
    return new RegExp(ctx.flags.filter, 'i');
  } catch (e) {
    throw usageError(`--filter is not a valid regular expression: ${(e as Error).message}`);
  }
}

/** The sessions whose sub-agents' updates to show: the named ones, else $KLAUDE_SESSION_ID, else none (the project's). */
function watchedParents(ctx: CommandContext, db: HasSqlite, hash: string): string[] {
  if (ctx.input.length > 0) return [...new Set(ctx.input.map((i) => findSession(db, i, hash).id))];
  const id = ctx.env.KLAUDE_SESSION_ID;
  if (!id) return [];
  if (!sessionExists(db, id)) {
    throw new KlaudeError('E_SESSION_NOT_FOUND', `KLAUDE_SESSION_ID ${id} is not a known session`, {
      hint: 'name the session whose sub-agents to watch: klaude watch <id>',
    });
  }
  return [id];
}

/** The updates not shown yet: claimed (acknowledged) for named parents, else peeked at past a cursor. */
export class UpdateFeed {
  /** Peek mode: the highest update id shown. */
  private cursor = 0;

  constructor(
    private readonly db: HasSqlite,
    private readonly hash: string,
    private readonly parents: string[],
    private readonly filter: RegExp | undefined,
  ) {}

  get acknowledges(): boolean {
    return this.parents.length > 0;
  }

  next(): UpdateView[] {
    if (this.acknowledges) return claimUpdates(this.db, pendingUpdatesFor(this.db, this.parents, this.filter));
    const rows = projectPendingUpdates(this.db, this.hash, this.cursor);
    if (rows.length) this.cursor = rows[rows.length - 1]!.id;
    const filter = this.filter;
    return describeUpdates(this.db, filter ? rows.filter((r) => filter.test(r.text)) : rows);
  }
}

function updatePrinter(
  ctx: CommandContext,
  opts: { json: boolean; timestamps: boolean; acknowledged: boolean },
): (views: UpdateView[]) => void {
  return (views) => {
    for (const v of views) {
      if (opts.json) ctx.stdout.write(`${safeJson({ ...v, acknowledged: opts.acknowledged })}\n`);
      else ctx.stdout.write(`${opts.timestamps ? `${formatTime(v.createdAt)} ` : ''}${formatUpdateLine(v)}\n`);
    }
  };
}

/**
 * Calls `check` whenever the database at `dbFile` changes (and once at the start), until Ctrl-C
 * (resolves 130) or until `check` throws or the watch fails (rejects). Writes that come while a
 * check is pending are folded into it.
 */
function onDbChanges(dbFile: string, check: () => void): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    let scheduled = false;
    let stopped = false;
    let unwatch = (): void => undefined;
    const stop = (code: number, err?: unknown): void => {
      stopped = true;
      unwatch();
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      if (err) reject(err);
      else resolve(code);
    };
    const onSignal = (): void => stop(130);
    const checkNow = (): void => {
      scheduled = false;
      if (stopped) return;
      try {
        check();
      } catch (e) {
        stop(1, e);
      }
    };
    const onWrite = (): void => {
      if (scheduled) return;
      scheduled = true;
      setImmediate(checkNow);
    };
    const dir = path.dirname(dbFile);
    const onError = (e: unknown): void =>
      stop(1, new KlaudeError('E_IO', `watching ${dir} failed: ${(e as Error).message}`, { cause: e }));
    unwatch = watchDbWrites(dbFile, onWrite, onError, { immediate: true, keepAlive: true });
    if (stopped) return; // the watch could not start
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    // Anything stored between the first read and the watch.
    checkNow();
  });
}

export async function run(ctx: CommandContext): Promise<number> {
  exitQuietlyOnBrokenPipe(ctx.stdout);
  const once = ctx.flags.once === true;
  const json = ctx.flags.json === true;
  const filter = parseFilter(ctx);

  const home = klaudeHome(ctx.env);
  const hash = projectHash(projectRoot(ctx.cwd));
  const timestamps = loadConfig(home).config['stream.timestamp'];
  const db = openDb(home);
  try {
    reconcile(db, { projectId: hash });
    const feed = new UpdateFeed(db, hash, watchedParents(ctx, db, hash), filter);
    const print = updatePrinter(ctx, { json, timestamps, acknowledged: feed.acknowledges });
    const first = feed.next();
    print(first);
    if (once) {
      if (first.length === 0 && !json) ctx.stdout.write('no pending updates\n');
      return 0;
    }
    return await onDbChanges(db.path, () => print(feed.next()));
  } finally {
    db.close();
  }
}

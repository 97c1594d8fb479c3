/**
 * `klaude watch [id…] [--once] [--json] [--filter re]`: the `[UPDATE]` channel from sub-agents.
 *
 * Whose updates: the named sessions' own and their sub-agents', else those for $KLAUDE_SESSION_ID
 * (the Claude running this). Updates *for* a watched session are acknowledged as they are printed
 * (delivered: the PostToolUse hook will not inject them again); the others are shown and left
 * pending. With neither, every pending update of the project is shown, whoever started the agent
 * (a top-level agent's updates have no Claude to go to: see repos/updates.ts), without acknowledging.
 *
 * Live: wakes on file-system notifications of the database directory (every committed write
 * touches sessions.db-wal), so an update is printed as soon as its row exists, whichever process
 * stored it. No timers.
 */
import path from 'node:path';
import { loadConfig } from '../../config/config.js';
import { klaudeHome, projectHash, projectRoot } from '../../config/paths.js';
import type { HasSqlite } from '../../db/connection.js';
import { openDb } from '../../db/client.js';
import { watchDbWrites } from '../../db/watch.js';
import { projectPendingUpdates, sessionExists } from '../../db/repos/listing.js';
import { pendingUpdatesFrom } from '../../db/repos/updates.js';
import { shortId } from '../../core/ids.js';
import { KlaudeError, usageError } from '../../lib/errors.js';
import { safeJson } from '../../lib/escapes.js';
import { formatTime } from '../../logs/format.js';
import {
  claimUpdates,
  describeUpdates,
  formatUpdateLine,
  pendingUpdatesFor,
  type UpdateView,
} from '../../logs/updates.js';
import { reconcile } from '../../ownership/reconcile.js';
import { findSession } from '../sessions/logs.js';
import type { CommandContext } from '../cli/types.js';

function parseFilter(ctx: CommandContext): RegExp | undefined {
  if (typeof ctx.flags.filter !== 'string' || ctx.flags.filter === '') return undefined;
  try {
    return new RegExp(ctx.flags.filter, 'i');
  } catch (e) {
    throw usageError(`--filter is not a valid regular expression: ${(e as Error).message}`);
  }
}

/**
 * What to watch: the named sessions (their own updates and their sub-agents'), else
 * $KLAUDE_SESSION_ID (its sub-agents'), else nobody in particular (the whole project).
 */
function watchedSessions(ctx: CommandContext, db: HasSqlite, hash: string): { ids: string[]; named: boolean } {
  if (ctx.input.length > 0)
    return { ids: [...new Set(ctx.input.map((i) => findSession(db, i, hash).id))], named: true };
  const id = ctx.env.KLAUDE_SESSION_ID;
  if (!id) return { ids: [], named: false };
  if (!sessionExists(db, id)) {
    throw new KlaudeError('E_SESSION_NOT_FOUND', `KLAUDE_SESSION_ID ${id} is not a known session`, {
      hint: 'name the session whose sub-agents to watch: klaude watch <id>',
    });
  }
  return { ids: [id], named: false };
}

export interface ShownUpdate extends UpdateView {
  /** Whether showing it took delivery (the parent's hook will not inject it). */
  acknowledged: boolean;
}

/**
 * The updates not shown yet. Updates for the watched sessions (from their sub-agents) are claimed:
 * this watch takes delivery for them. Anything else shown (a named agent's own updates to its
 * parent, the whole project's) is peeked at past a cursor and left for whoever it is for.
 */
export class UpdateFeed {
  /** The highest update id peeked at. */
  private cursor = 0;

  constructor(
    private readonly db: HasSqlite,
    private readonly hash: string,
    private readonly watched: { ids: string[]; named: boolean },
    private readonly filter: RegExp | undefined,
  ) {}

  next(): ShownUpdate[] {
    const { ids, named } = this.watched;
    const claimed = ids.length
      ? claimUpdates(this.db, pendingUpdatesFor(this.db, ids, this.filter)).map((v) => ({ ...v, acknowledged: true }))
      : [];
    const peekRows =
      ids.length === 0
        ? projectPendingUpdates(this.db, this.hash, this.cursor)
        : named
          ? pendingUpdatesFrom(this.db, ids, this.cursor)
          : [];
    if (peekRows.length) this.cursor = peekRows[peekRows.length - 1]!.id;
    const filter = this.filter;
    const taken = new Set(claimed.map((v) => v.id));
    const peeked = describeUpdates(
      this.db,
      peekRows.filter((r) => !taken.has(r.id) && (!filter || filter.test(r.text))),
    ).map((v) => ({ ...v, acknowledged: false }));
    return [...claimed, ...peeked].sort((a, b) => a.id - b.id);
  }
}

/** The line that says what a live watch follows and how to stop it (stderr: stdout stays the updates). */
function watchBanner(watched: { ids: string[]; named: boolean }): string {
  const who = watched.named
    ? `from ${watched.ids.map(shortId).join(', ')} and their sub-agents`
    : watched.ids.length
      ? `from the sub-agents of this session (${shortId(watched.ids[0]!)})`
      : `from every agent of this project`;
  return `klaude: watching [UPDATE] and [NEEDS APPROVAL] notes ${who}; Ctrl-C stops\n`;
}

function updatePrinter(
  ctx: CommandContext,
  opts: { json: boolean; timestamps: boolean },
): (views: ShownUpdate[]) => void {
  return (views) => {
    for (const v of views) {
      if (opts.json) ctx.stdout.write(`${safeJson(v)}\n`);
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
  const once = ctx.flags.once === true;
  const json = ctx.flags.json === true;
  const filter = parseFilter(ctx);

  const home = klaudeHome(ctx.env);
  const hash = projectHash(projectRoot(ctx.cwd));
  const timestamps = loadConfig(home).config['stream.timestamp'];
  const db = openDb(home);
  try {
    reconcile(db, { projectId: hash });
    const watched = watchedSessions(ctx, db, hash);
    const feed = new UpdateFeed(db, hash, watched, filter);
    const print = updatePrinter(ctx, { json, timestamps });
    if (!once && !json) ctx.stderr.write(watchBanner(watched));
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

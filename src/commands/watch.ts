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
import { watch, type FSWatcher } from 'node:fs';
import { loadConfig } from '../config/config.js';
import { klaudeHome, projectHash, projectRoot } from '../config/paths.js';
import { openDb } from '../db/client.js';
import { projectPendingUpdates, sessionExists } from '../db/repos/listing.js';
import { KlaudeError, usageError } from '../lib/errors.js';
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

export async function run(ctx: CommandContext): Promise<number> {
  exitQuietlyOnBrokenPipe(ctx.stdout);
  const once = ctx.flags.once === true;
  const json = ctx.flags.json === true;
  let filter: RegExp | undefined;
  if (typeof ctx.flags.filter === 'string' && ctx.flags.filter !== '') {
    try {
      filter = new RegExp(ctx.flags.filter, 'i');
    } catch (e) {
      throw usageError(`--filter is not a valid regular expression: ${(e as Error).message}`);
    }
  }

  const home = klaudeHome(ctx.env);
  const hash = projectHash(projectRoot(ctx.cwd));
  const timestamps = loadConfig(home).config['stream.timestamp'];
  const db = openDb(home);
  try {
    reconcile(db, { projectId: hash });
    let parents: string[] = [];
    if (ctx.input.length > 0) parents = [...new Set(ctx.input.map((i) => findSession(db, i, hash).id))];
    else if (ctx.env.KLAUDE_SESSION_ID) {
      const id = ctx.env.KLAUDE_SESSION_ID;
      if (!sessionExists(db, id)) {
        throw new KlaudeError('E_SESSION_NOT_FOUND', `KLAUDE_SESSION_ID ${id} is not a known session`, {
          hint: 'name the session whose sub-agents to watch: klaude watch <id>',
        });
      }
      parents = [id];
    }
    const acknowledge = parents.length > 0;
    let cursor = 0; // peek mode: highest id shown

    const next = (): UpdateView[] => {
      if (acknowledge) return claimUpdates(db, pendingUpdatesFor(db, parents, filter));
      const rows = projectPendingUpdates(db, hash, cursor);
      if (rows.length) cursor = rows[rows.length - 1]!.id;
      return describeUpdates(db, filter ? rows.filter((r) => filter.test(r.text)) : rows);
    };
    const print = (views: UpdateView[]): void => {
      for (const v of views) {
        if (json) ctx.stdout.write(`${JSON.stringify({ ...v, acknowledged: acknowledge })}\n`);
        else ctx.stdout.write(`${timestamps ? `${formatTime(v.createdAt)} ` : ''}${formatUpdateLine(v)}\n`);
      }
    };

    const first = next();
    print(first);
    if (once) {
      if (first.length === 0 && !json) ctx.stdout.write('no pending updates\n');
      return 0;
    }

    return await new Promise<number>((resolve, reject) => {
      let scheduled = false;
      let watcher: FSWatcher | undefined;
      const stop = (code: number, err?: unknown): void => {
        watcher?.close();
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        if (err) reject(err);
        else resolve(code);
      };
      const onSignal = (): void => stop(130);
      const check = (): void => {
        scheduled = false;
        try {
          print(next());
        } catch (e) {
          stop(1, e);
        }
      };
      try {
        watcher = watch(home, { persistent: true }, (_type, name) => {
          if (name !== null && !String(name).startsWith('sessions.db')) return;
          if (!scheduled) {
            scheduled = true;
            setImmediate(check);
          }
        });
      } catch (e) {
        reject(new KlaudeError('E_IO', `cannot watch ${home}: ${(e as Error).message}`, { cause: e }));
        return;
      }
      watcher.on('error', (e) =>
        stop(1, new KlaudeError('E_IO', `watching ${home} failed: ${e.message}`, { cause: e })),
      );
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      // Anything stored between the first read and the watch.
      check();
    });
  } finally {
    db.close();
  }
}

/**
 * `klaude logs <id> [-f] [-s] [--raw] [-n N]`: a session's log, readable (default), as written
 * (--raw), as a completion summary (-s), or followed live until the agent is done (-f).
 */
import { loadConfig } from '../config/config.js';
import { klaudeHome, projectHash, projectRoot, sessionLogPath } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import type { AgentEvent } from '../core/events.js';
import type { HasSqlite } from '../db/connection.js';
import { openFastDb } from '../db/fast.js';
import { hasDeadProcesses } from '../db/repos/listing.js';
import { resolveSession } from '../db/repos/resolve.js';
import type { SessionRow } from '../db/schema.js';
import { KlaudeError, usageError } from '../lib/errors.js';
import { createFormatter, formatOptionsFor } from '../logs/format.js';
import { readAll, readTail } from '../logs/reader.js';
import { createStreamPrinter } from '../logs/stream-print.js';
import { transcriptsOf } from '../db/repos/transcripts.js';
import { exitQuietlyOnBrokenPipe } from './output.js';
import type { CommandContext } from './types.js';

/** The session an id names: in this project first, then anywhere (a log can be read from any directory). */
export function findSession(db: HasSqlite, input: string, projectId: string): SessionRow {
  try {
    return resolveSession(db, input, { projectId });
  } catch (e) {
    if (e instanceof KlaudeError && e.code === 'E_SESSION_NOT_FOUND' && input.trim().length >= 4) {
      return resolveSession(db, input);
    }
    throw e;
  }
}

/** Where a session's log is: its recorded path, else the default location (under config `logs.dir` when set). */
export function logPathOf(home: string, s: SessionRow, logsDir: string | null): string {
  return s.logPath ?? sessionLogPath(home, s.projectId, s.id, logsDir);
}

export async function run(ctx: CommandContext): Promise<number> {
  exitQuietlyOnBrokenPipe(ctx.stdout);
  const [input] = ctx.input;
  if (!input) throw usageError('missing session id', 'usage: klaude logs <id> [-f] [-s] [--raw] [-n N]');
  const follow = ctx.flags.follow === true || ctx.flags.tail === true; // -t: `klaude read`'s spelling
  const summaryOnly = ctx.flags.summary === true;
  const raw = ctx.flags.raw === true;
  const n = ctx.flags.lines;
  if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 0)) {
    throw usageError('-n needs a whole number of events (0 or more)');
  }
  if (summaryOnly && (raw || follow)) throw usageError('-s cannot be combined with --raw or -f');

  const home = klaudeHome(ctx.env);
  const hash = projectHash(projectRoot(ctx.cwd));
  const { session, transcripts } = await sessionToRead(home, hash, input);
  const { config } = loadConfig(home);
  const file = logPathOf(home, session, config['logs.dir']);
  const timestamps = config['stream.timestamp'];
  const printer = createStreamPrinter(
    createFormatter({ ...formatOptionsFor(ctx.stdout, ctx.env, { timestamps }), sessionId: shortId(session.id) }),
  );
  const out = (s: string): void => void ctx.stdout.write(s);
  const write = (event: AgentEvent, line: string | null): void => {
    if (raw) {
      ctx.stdout.write(`${line ?? JSON.stringify(event)}\n`);
      return;
    }
    printer.printTo(event, out);
  };
  const closeLine = (): void => {
    const s = raw ? '' : printer.finish();
    if (s) ctx.stdout.write(s);
  };

  if (summaryOnly) {
    const { collectCompletionInfo, formatSummary } = await import('../logs/summary.js');
    const events: AgentEvent[] = [];
    for await (const l of readAll(file)) events.push(l.event);
    const info = collectCompletionInfo(events);
    if (!info.ended && isTerminal(session.status)) info.status = session.status;
    if (info.costUsd === null && session.costUsd !== null) info.costUsd = session.costUsd;
    if (events.length === 0 && !isTerminal(session.status)) info.status = session.status;
    ctx.stdout.write(
      formatSummary(info, {
        label: `${session.type} ${shortId(session.id)}`,
        moreHint: `klaude logs ${shortId(session.id)}`,
      }),
    );
    return 0;
  }

  const live = follow && !isTerminal(session.status);
  if (transcripts.length > 0) {
    // It ran interactively: the log and Claude's transcripts, one timeline.
    const abort = new AbortController();
    const onSignal = (): void => abort.abort();
    process.once('SIGINT', onSignal);
    process.once('SIGTERM', onSignal);
    try {
      const { runTimeline } = await import('./logs-timeline.js');
      const how = await runTimeline({
        home,
        session,
        log: file,
        transcripts,
        write,
        ...(n !== undefined ? { n } : {}),
        follow: live,
        signal: abort.signal,
      });
      closeLine();
      if (how === 'aborted') {
        ctx.stderr.write(`stopped following (klaude logs -f ${shortId(session.id)} to follow again)\n`);
        return 130;
      }
      return 0;
    } finally {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    }
  }
  if (!live) {
    let any = false;
    if (n !== undefined) {
      const tail = await readTail(file, n);
      tail.events.forEach((e, i) => write(e, tail.lines[i]!));
      any = tail.events.length > 0 || !tail.missing;
    } else {
      for await (const l of readAll(file)) {
        any = true;
        write(l.event, l.line);
      }
    }
    closeLine();
    if (!any && !raw) {
      const why =
        session.type === 'tui'
          ? `${shortId(session.id)} is an interactive Claude session with nothing said yet`
          : `no log yet for ${shortId(session.id)} (${session.status}); expected at ${file}`;
      ctx.stderr.write(`${why}\n`);
    }
    return 0;
  }

  // Follow: history (all, or the last N), then live until done or Ctrl-C.
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    const { followLog } = await import('../logs/follow.js');
    const end = await followLog(file, {
      ...(n !== undefined ? { fromTail: n } : { fromStart: true }),
      untilDone: true,
      signal: abort.signal,
      onEvent: write,
    });
    closeLine();
    if (end.reason === 'aborted') {
      ctx.stderr.write(
        `stopped following; the agent keeps running (klaude logs -f ${shortId(session.id)} to follow again)\n`,
      );
      return 130;
    }
    return 0;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

/**
 * The session and its transcripts. Without drizzle when the DB is current and no recorded process
 * of the project has died (as `sessions` does): reading a log should not cost a migration check
 * and a reconcile. Otherwise the full client, and reconcile first, so a dead agent reads as ended.
 */
async function sessionToRead(
  home: string,
  hash: string,
  input: string,
): Promise<{ session: SessionRow; transcripts: string[] }> {
  const fast = openFastDb(home);
  if (fast && !hasDeadProcesses(fast, hash)) {
    try {
      const session = findSession(fast, input, hash);
      return { session, transcripts: transcriptsOf(fast, session) };
    } finally {
      fast.close();
    }
  }
  fast?.close();
  const [{ openDb }, { reconcile }] = await Promise.all([
    import('../db/client.js'),
    import('../ownership/reconcile.js'),
  ]);
  const db = openDb(home);
  try {
    reconcile(db, { projectId: hash });
    const session = findSession(db, input, hash);
    return { session, transcripts: transcriptsOf(db, session) };
  } finally {
    db.close();
  }
}

/**
 * `klaude logs <id> [-f] [-s] [--raw] [-n N]`: a session's log, readable (default), as written
 * (--raw), as a completion summary (-s), or followed live until the agent is done (-f).
 */
import { loadConfig } from '../../config/config.js';
import { klaudeHome, projectHash, projectRoot, sessionLogPath } from '../../config/paths.js';
import { shortId } from '../../core/ids.js';
import { isTerminal } from '../../core/status.js';
import type { AgentEvent } from '../../core/events.js';
import type { HasSqlite } from '../../db/connection.js';
import { openFastDb } from '../../db/fast.js';
import { hasDeadProcesses } from '../../db/repos/listing.js';
import { resolveSession } from '../../db/repos/resolve.js';
import type { SessionRow } from '../../db/schema.js';
import { KlaudeError, usageError } from '../../lib/errors.js';
import { jsonControlsEscaped } from '../../lib/escapes.js';
import { createFormatter, formatOptionsFor } from '../../logs/format.js';
import { readAll, readTail } from '../../logs/reader.js';
import { readReadableTail } from '../../logs/readable-tail.js';
import { createStreamPrinter } from '../../logs/stream-print.js';
import { transcriptsOf } from '../../db/repos/transcripts.js';
import type { CommandContext } from '../cli/types.js';

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

/** What `klaude logs` was asked for. */
interface LogsRequest {
  input: string;
  follow: boolean;
  summaryOnly: boolean;
  raw: boolean;
  /** Last N events only. */
  n: number | undefined;
}

function parseLogsFlags(ctx: CommandContext): LogsRequest {
  const [input] = ctx.input;
  if (!input) throw usageError('missing session id', 'usage: klaude logs <id> [-f] [-s] [--raw] [-n N]');
  const follow = ctx.flags.follow === true || ctx.flags.tail === true; // -t: `klaude read`'s spelling
  const summaryOnly = ctx.flags.summary === true;
  const raw = ctx.flags.raw === true;
  const n = ctx.flags.lines;
  if (n !== undefined && (typeof n !== 'number' || !Number.isInteger(n) || n < 0)) {
    throw usageError('-n needs a whole number of entries (0 or more)');
  }
  if (summaryOnly && (raw || follow)) throw usageError('-s cannot be combined with --raw or -f');
  return { input, follow, summaryOnly, raw, n };
}

/** Prints events readable or (--raw) as written; `close` ends a line the readable form left open. */
interface LogWriter {
  write: (event: AgentEvent, line: string | null) => void;
  close: () => void;
}

function logWriter(ctx: CommandContext, session: SessionRow, raw: boolean, timestamps: boolean): LogWriter {
  const printer = createStreamPrinter(
    createFormatter({ ...formatOptionsFor(ctx.stdout, ctx.env, { timestamps }), sessionId: shortId(session.id) }),
  );
  const out = (s: string): void => void ctx.stdout.write(s);
  return {
    write: (event, line) => {
      if (raw) {
        // As written, but a raw DEL or C1 character (JSON allows them in strings) as a \u escape.
        ctx.stdout.write(`${jsonControlsEscaped(line ?? JSON.stringify(event))}\n`);
        return;
      }
      printer.printTo(event, out);
    },
    close: () => {
      const s = raw ? '' : printer.finish();
      if (s) ctx.stdout.write(s);
    },
  };
}

export async function run(ctx: CommandContext): Promise<number> {
  const req = parseLogsFlags(ctx);
  const home = klaudeHome(ctx.env);
  const root = projectRoot(ctx.cwd);
  const hash = projectHash(root);
  const { session, transcripts } = await sessionToRead(home, hash, req.input);
  const { config } = loadConfig(home);
  const file = logPathOf(home, session, config['logs.dir']);
  if (req.summaryOnly) return printSummary(ctx, session, file, session.projectId === hash ? root : null);

  const writer = logWriter(ctx, session, req.raw, config['stream.timestamp']);
  // A fork's log starts at the fork: say where the earlier turns are.
  if (session.forkedFrom && !req.raw)
    ctx.stdout.write(
      `forked from ${shortId(session.forkedFrom)} (\`klaude logs ${shortId(session.forkedFrom)}\`: the turns before the fork)\n`,
    );
  const live = req.follow && !isTerminal(session.status);
  // It ran interactively: the log and Claude's transcripts, one timeline.
  if (transcripts.length > 0) return printTimeline(ctx, { home, session, file, transcripts, writer, n: req.n, live });
  if (!live) return printLog(ctx, session, file, writer, req);
  return followLogFile(ctx, session, file, writer, req.n);
}

/** -s: the completion summary, from the log and (where the log does not say) the session row. */
async function printSummary(
  ctx: CommandContext,
  session: SessionRow,
  file: string,
  root: string | null,
): Promise<number> {
  const { collectCompletionInfo, formatSummary } = await import('../../logs/summary.js');
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
      relativeTo: [session.worktreePath, root],
    }),
  );
  return 0;
}

/** Runs `body` with a signal that Ctrl-C (or SIGTERM) aborts, the handlers removed afterwards. */
async function abortableOnSignals<T>(body: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSignal = (): void => abort.abort();
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  try {
    return await body(abort.signal);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

interface TimelineTarget {
  home: string;
  session: SessionRow;
  file: string;
  transcripts: string[];
  writer: LogWriter;
  n: number | undefined;
  live: boolean;
}

async function printTimeline(ctx: CommandContext, t: TimelineTarget): Promise<number> {
  return abortableOnSignals(async (signal) => {
    const { runTimeline } = await import('./logs-timeline.js');
    const how = await runTimeline({
      home: t.home,
      session: t.session,
      log: t.file,
      transcripts: t.transcripts,
      write: t.writer.write,
      ...(t.n !== undefined ? { n: t.n } : {}),
      follow: t.live,
      signal,
    });
    t.writer.close();
    if (how === 'aborted') {
      ctx.stderr.write(`stopped following (klaude logs -f ${shortId(t.session.id)} to follow again)\n`);
      return 130;
    }
    return 0;
  });
}

/** The log as it is now (all, or the last N events); says so when there is nothing to show. */
async function printLog(
  ctx: CommandContext,
  session: SessionRow,
  file: string,
  writer: LogWriter,
  req: LogsRequest,
): Promise<number> {
  let any = false;
  if (req.n !== undefined && req.raw) {
    // --raw is the log as written: -n counts its lines.
    const tail = await readTail(file, req.n);
    tail.events.forEach((e, i) => writer.write(e, tail.lines[i]!));
    any = tail.events.length > 0 || !tail.missing;
  } else if (req.n !== undefined) {
    const { tail, pick } = await readReadableTail(file, req.n);
    pick.indexes.forEach((i) => writer.write(tail.events[i]!, tail.lines[i]!));
    any = tail.events.length > 0 || !tail.missing;
  } else {
    for await (const l of readAll(file)) {
      any = true;
      writer.write(l.event, l.line);
    }
  }
  writer.close();
  if (!any && !req.raw) {
    const why =
      session.type === 'tui'
        ? `${shortId(session.id)} is an interactive Claude session with nothing said yet`
        : `no log yet for ${shortId(session.id)} (${session.status}); expected at ${file}`;
    ctx.stderr.write(`${why}\n`);
  }
  return 0;
}

/** Follow: history (all, or the last N), then live until done or Ctrl-C. */
async function followLogFile(
  ctx: CommandContext,
  session: SessionRow,
  file: string,
  writer: LogWriter,
  n: number | undefined,
): Promise<number> {
  return abortableOnSignals(async (signal) => {
    const { followLog } = await import('../../logs/follow.js');
    const from = n === undefined ? undefined : await readableTailStart(file, n);
    const end = await followLog(file, {
      ...(from ?? { fromStart: true }),
      untilDone: true,
      signal,
      onEvent: writer.write,
    });
    writer.close();
    if (end.reason === 'aborted') {
      ctx.stderr.write(
        `stopped following; the agent keeps running (klaude logs -f ${shortId(session.id)} to follow again)\n`,
      );
      return 130;
    }
    return 0;
  });
}

/**
 * Where `-f -n N` starts: at the line of the first of the last N readable entries (the printer
 * shows a closed message's pieces and its text as one text), or after the end when N is 0.
 */
async function readableTailStart(file: string, n: number): Promise<{ fromOffset: number } | { fromTail: 0 }> {
  if (n === 0) return { fromTail: 0 };
  const { tail, pick } = await readReadableTail(file, n);
  const i = pick.start;
  if (i >= tail.events.length) return { fromOffset: tail.offset };
  return { fromOffset: tail.ends[i]! - Buffer.byteLength(tail.lines[i]!) - 1 };
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
    import('../../db/client.js'),
    import('../../ownership/reconcile.js'),
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

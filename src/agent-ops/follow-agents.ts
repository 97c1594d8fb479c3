/**
 * Following agents to the end for a command's stdout (attached `klaude start`, `klaude message -w`)
 * and waiting for them (`klaude wait`). Logs are followed with file-system notifications
 * (logs/follow.ts); one slow backstop timer per call (BACKSTOP_MS) catches a runtime that died
 * without writing its `done` (liveness.ts appends one for it) or a DB that ended the session while
 * the log did not.
 */
import { sessionLogPath } from '../config/paths.js';
import type { AgentEvent } from '../core/events.js';
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import { pendingApprovals, type ApprovalRow } from '../db/repos/approvals.js';
import { resolveSession } from '../db/repos/resolve.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { followLog } from '../logs/follow.js';
import { createFormatter, formatOptionsFor } from '../logs/format.js';
import { readAll } from '../logs/reader.js';
import { createStreamPrinter } from '../logs/stream-print.js';
import { collectCompletionInfo, formatSummary, type CompletionInfo } from '../logs/summary.js';
import type { AgentServices } from './context.js';
import { reapOrRecover } from './recover.js';

export const BACKSTOP_MS = 1000;
/** After a `done` line, the row is looked at this often, this many times, until it says ended. */
const DONE_RECHECK_MS = 20;
const DONE_RECHECKS = 10;

/** The session an id names: this project first, then any project. */
export function findAgent(svc: AgentServices, input: string): SessionRow {
  try {
    return resolveSession(svc.db, input, { projectId: svc.projectHash });
  } catch (e) {
    if (e instanceof KlaudeError && e.code === 'E_SESSION_NOT_FOUND' && input.trim().length >= 4)
      return resolveSession(svc.db, input);
    throw e;
  }
}

export function logPathOf(svc: AgentServices, s: SessionRow): string {
  return s.logPath ?? sessionLogPath(svc.home, s.projectId, s.id, svc.config['logs.dir']);
}

export function agentLabel(s: SessionRow): string {
  return `agent ${shortId(s.id)} (${s.type})`;
}

/** Completion info of a log from `offset` on (0 = the whole log). */
export async function completionOf(file: string, offset = 0): Promise<CompletionInfo> {
  const events: AgentEvent[] = [];
  for await (const l of readAll(file, { start: offset })) events.push(l.event);
  return collectCompletionInfo(events);
}

export interface FollowTarget {
  session: SessionRow;
  /** Byte offset to start at (default: the beginning). */
  offset?: number;
}

export interface FollowResult {
  session: SessionRow;
  /** null when following stopped before the agent finished (detach, timeout). */
  info: CompletionInfo | null;
}

/**
 * Print the agents' events to `out` as they are appended, and each one's summary when it is done.
 * With several agents, every line is prefixed with the agent's short id. Resolves when all are
 * done or `signal` aborts.
 */
export async function followAgents(
  svc: AgentServices,
  targets: FollowTarget[],
  out: NodeJS.WritableStream & { isTTY?: boolean; columns?: number },
  opts: { signal: AbortSignal },
): Promise<FollowResult[]> {
  const many = targets.length > 1;
  const fmtOpts = formatOptionsFor(out, svc.env, {
    showUser: false,
    showInit: false,
    timestamps: svc.config['stream.timestamp'],
  });
  const local = new AbortController();
  const onAbort = (): void => local.abort();
  opts.signal.addEventListener('abort', onAbort, { once: true });
  const ended = new Set<string>();
  const seenDone = new Set<string>();
  const dbTerminalSeen = new Map<string, number>();
  const perTarget = new Map<string, AbortController>();

  const backstop = setInterval(() => {
    for (const t of targets) {
      const id = t.session.id;
      if (ended.has(id)) continue;
      reapOrRecover(svc, id);
      const s = getSession(svc.db, id);
      // The DB says it ended but no `done` reached the log (e.g. recovery after a crash): stop after a few checks.
      if (s && isTerminal(s.status) && !seenDone.has(id)) {
        const n = (dbTerminalSeen.get(id) ?? 0) + 1;
        dbTerminalSeen.set(id, n);
        if (n >= 3) perTarget.get(id)?.abort();
      }
    }
  }, BACKSTOP_MS);

  try {
    return await Promise.all(
      targets.map(async (t): Promise<FollowResult> => {
        const file = logPathOf(svc, t.session);
        const fmt = createFormatter({ ...fmtOpts, sessionId: shortId(t.session.id) });
        // One agent: its text streams as it is written. Several: whole lines only, each with its
        // agent's id (pieces of two agents on one line would be unreadable).
        const printer = many ? null : createStreamPrinter(fmt);
        const prefix = many ? `[${shortId(t.session.id)}] ` : '';
        const ac = new AbortController();
        perTarget.set(t.session.id, ac);
        local.signal.addEventListener('abort', () => ac.abort(), { once: true });
        const end = await followLog(file, {
          ...(t.offset !== undefined ? { fromOffset: t.offset } : { fromStart: true }),
          untilDone: true,
          signal: ac.signal,
          onEvent: (e) => {
            if (e.type === 'done') {
              seenDone.add(t.session.id);
              return;
            }
            if (printer) {
              const s = printer.print(e);
              if (s) out.write(s);
              return;
            }
            const text = fmt.format(e);
            if (text !== null) out.write(`${prefix ? text.replace(/^/gm, prefix) : text}\n`);
          },
        });
        const tail = printer?.finish();
        if (tail) out.write(tail);
        ended.add(t.session.id);
        const session = getSession(svc.db, t.session.id) ?? t.session;
        if (end.reason !== 'done' && !(isTerminal(session.status) && !opts.signal.aborted))
          return { session, info: null };
        const info = await completionOf(file, t.offset ?? 0);
        if (!info.ended) info.status = session.status;
        const label = agentLabel(session);
        out.write(
          formatSummary(info, { label, moreHint: `klaude logs ${shortId(session.id)}` }).replace(/^/gm, prefix),
        );
        return { session, info };
      }),
    );
  } finally {
    clearInterval(backstop);
    opts.signal.removeEventListener('abort', onAbort);
  }
}

export interface WaitResult {
  finished: SessionRow[];
  running: SessionRow[];
  timedOut: boolean;
  /** With `stopOnApproval`: the agents waiting on a permission request when the wait returned. */
  asking?: SessionRow[];
}

/**
 * Block until all sessions (or, with `any`, one of them) are in a terminal state, or `timeoutMs`
 * passes. Woken by appends to their logs, with the backstop timer for runtimes that died silently.
 * A runtime writes `done` just before it records the end in the DB, so a `done` line whose row
 * still says running is looked at again a few times soon after, not only at the backstop.
 */
export async function waitForAgents(
  svc: AgentServices,
  sessions: SessionRow[],
  opts: {
    any?: boolean;
    timeoutMs: number;
    signal?: AbortSignal;
    /** Each new permission request of a waited-for agent (once per request). */
    onApproval?: (s: SessionRow, a: ApprovalRow) => void;
    /** Return as soon as one of them waits on a permission request (the caller can answer it). */
    stopOnApproval?: boolean;
  },
): Promise<WaitResult> {
  const ac = new AbortController();
  let timedOut = false;
  return new Promise<WaitResult>((resolve, reject) => {
    const finished = new Map<string, SessionRow>();
    const asking = new Map<string, SessionRow>();
    const told = new Set<number>();
    let settled = false;
    const settle = (): void => {
      if (settled) return;
      settled = true;
      clearInterval(backstop);
      clearTimeout(timer);
      ac.abort();
      opts.signal?.removeEventListener('abort', onAbort);
      const order = sessions.map((s) => s.id);
      resolve({
        finished: order.filter((id) => finished.has(id)).map((id) => finished.get(id)!),
        running: order
          .filter((id) => !finished.has(id))
          .map((id) => getSession(svc.db, id) ?? sessions.find((s) => s.id === id)!),
        timedOut,
        ...(opts.stopOnApproval ? { asking: [...asking.values()] } : {}),
      });
    };
    const check = (reap: boolean): void => {
      if (settled) return;
      try {
        for (const s of sessions) {
          if (finished.has(s.id)) continue;
          if (reap) reapOrRecover(svc, s.id);
          const cur = getSession(svc.db, s.id);
          if (!cur || isTerminal(cur.status)) finished.set(s.id, cur ?? s);
          else if (cur.status === 'waiting' && (opts.onApproval || opts.stopOnApproval)) {
            const pending = pendingApprovals(svc.db, cur.id);
            for (const a of pending.filter((x) => !told.has(x.id))) {
              told.add(a.id);
              opts.onApproval?.(cur, a);
            }
            if (pending.length > 0 && opts.stopOnApproval) asking.set(cur.id, cur);
          }
        }
      } catch (e) {
        settled = true;
        clearInterval(backstop);
        clearTimeout(timer);
        ac.abort();
        reject(e);
        return;
      }
      if ((opts.any && finished.size > 0) || finished.size === sessions.length || asking.size > 0) settle();
    };
    const onAbort = (): void => settle();
    const backstop = setInterval(() => check(true), BACKSTOP_MS);
    const timer = setTimeout(() => {
      timedOut = true;
      settle();
    }, opts.timeoutMs);
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    for (const s of sessions) {
      followLog(logPathOf(svc, s), {
        fromTail: 0,
        signal: ac.signal,
        onEvent: (e) => {
          if (e.type === 'status') check(false);
          else if (e.type === 'done') {
            check(false);
            let tries = 0;
            const again = (): void => {
              if (settled || finished.has(s.id) || ++tries > DONE_RECHECKS) return;
              check(false);
              setTimeout(again, DONE_RECHECK_MS).unref();
            };
            setTimeout(again, DONE_RECHECK_MS).unref();
          }
        },
      }).catch(() => undefined);
    }
    check(true);
  });
}

/**
 * Following agents to the end for a command's stdout (attached `klaude start`, `klaude message -f`)
 * and waiting for them (`klaude wait`). Logs are followed with file-system notifications
 * (logs/follow.ts); one slow backstop timer per call (BACKSTOP_MS) catches a runtime that died
 * without writing its `done` (liveness.ts appends one for it) or a DB that ended the session while
 * the log did not.
 */
import { nameSuffix } from '../core/session-title.js';
import { sessionLogPath } from '../config/paths.js';
import type { AgentEvent } from '../core/events.js';
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import { pendingApprovals, type ApprovalRow } from '../db/repos/approvals.js';
import { resolveSession } from '../db/repos/resolve.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { followLog, type FollowEnd } from '../logs/follow.js';
import { createFormatter, formatOptionsFor, type FormatOptions } from '../logs/format.js';
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
  return `agent ${shortId(s.id)} (${s.type})${nameSuffix(s.name)}`;
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
  /**
   * Print from the first event this accepts on (default: from `offset`): a message to a running
   * agent waits for its turn, and the rest of the turn before it is not its reply.
   */
  startAt?: (e: AgentEvent) => boolean;
}

export interface FollowResult {
  session: SessionRow;
  /** null when following stopped before the agent finished (detach, timeout). */
  info: CompletionInfo | null;
}

type FollowOut = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** Called once a followed agent's log shows a permission request (after the line is printed). */
export type OnApprovalEvent = (session: SessionRow, e: Extract<AgentEvent, { type: 'approval_request' }>) => void;

/**
 * Print the agents' events to `out` as they are appended, and each one's summary when it is done.
 * With several agents, every line is prefixed with the agent's short id. Resolves when all are
 * done or `signal` aborts.
 */
export async function followAgents(
  svc: AgentServices,
  targets: FollowTarget[],
  out: FollowOut,
  opts: { signal: AbortSignal; onApproval?: OnApprovalEvent },
): Promise<FollowResult[]> {
  const run = new AgentsFollow(svc, targets, out, opts.signal, opts.onApproval);
  const onAbort = (): void => run.local.abort();
  opts.signal.addEventListener('abort', onAbort, { once: true });
  const backstop = setInterval(() => run.backstop(), BACKSTOP_MS);
  try {
    return await Promise.all(targets.map((t) => run.follow(t)));
  } finally {
    clearInterval(backstop);
    opts.signal.removeEventListener('abort', onAbort);
  }
}

/** One followAgents call: its agents' follows and what is known of how each ended. */
export class AgentsFollow {
  readonly many: boolean;
  private readonly fmtOpts: FormatOptions;
  /** Aborted with the caller's signal: ends every follow. */
  readonly local = new AbortController();
  /** Agents whose follow has ended. */
  readonly ended = new Set<string>();
  /** Agents whose log has shown a `done`. */
  readonly seenDone = new Set<string>();
  /** Per agent, how many backstop checks found the DB saying it ended while its log had no `done`. */
  readonly dbTerminalSeen = new Map<string, number>();
  /** Per agent, what ends its follow alone. */
  readonly perTarget = new Map<string, AbortController>();

  constructor(
    private readonly svc: AgentServices,
    private readonly targets: FollowTarget[],
    private readonly out: FollowOut,
    private readonly signal: AbortSignal,
    private readonly onApproval?: OnApprovalEvent,
  ) {
    this.many = targets.length > 1;
    this.fmtOpts = formatOptionsFor(out, svc.env, {
      showUser: false,
      showInit: false,
      timestamps: svc.config['stream.timestamp'],
    });
  }

  /** The slow check of runtimes that died silently and of sessions the DB ended without a `done` line. */
  backstop(): void {
    for (const t of this.targets) {
      const id = t.session.id;
      if (this.ended.has(id)) continue;
      reapOrRecover(this.svc, id);
      const s = getSession(this.svc.db, id);
      // The DB says it ended but no `done` reached the log (e.g. recovery after a crash): stop after a few checks.
      if (s && isTerminal(s.status) && !this.seenDone.has(id)) {
        const n = (this.dbTerminalSeen.get(id) ?? 0) + 1;
        this.dbTerminalSeen.set(id, n);
        if (n >= 3) this.perTarget.get(id)?.abort();
      }
    }
  }

  /** Follow one agent to its end; its summary once it is done. */
  async follow(t: FollowTarget): Promise<FollowResult> {
    const file = logPathOf(this.svc, t.session);
    const end = await this.print(t, file);
    this.ended.add(t.session.id);
    const session = getSession(this.svc.db, t.session.id) ?? t.session;
    if (end.reason !== 'done' && !(isTerminal(session.status) && !this.signal.aborted)) return { session, info: null };
    const info = await completionOf(file, t.offset ?? 0);
    if (!info.ended) info.status = session.status;
    const label = agentLabel(session);
    this.out.write(
      formatSummary(info, {
        label,
        moreHint: `klaude logs ${shortId(session.id)}`,
        relativeTo: [session.worktreePath, this.svc.projectRoot],
      }).replace(/^/gm, this.prefixOf(t)),
    );
    return { session, info };
  }

  private prefixOf(t: FollowTarget): string {
    return this.many ? `[${shortId(t.session.id)}] ` : '';
  }

  /** Print one agent's events as they are appended, until its `done` or an abort. */
  private async print(t: FollowTarget, file: string): Promise<FollowEnd> {
    const fmt = createFormatter({ ...this.fmtOpts, sessionId: shortId(t.session.id) });
    // One agent: its text streams as it is written. Several: whole lines only, each with its
    // agent's id (pieces of two agents on one line would be unreadable).
    const printer = this.many ? null : createStreamPrinter(fmt);
    const prefix = this.prefixOf(t);
    const ac = new AbortController();
    this.perTarget.set(t.session.id, ac);
    this.local.signal.addEventListener('abort', () => ac.abort(), { once: true });
    let started = t.startAt === undefined;
    const end = await followLog(file, {
      ...(t.offset !== undefined ? { fromOffset: t.offset } : { fromStart: true }),
      untilDone: true,
      signal: ac.signal,
      onEvent: (e) => {
        if (e.type === 'done') {
          this.seenDone.add(t.session.id);
          return;
        }
        if (!started) started = t.startAt!(e);
        if (!started) return;
        if (printer) {
          const s = printer.print(e);
          if (s) this.out.write(s);
        } else {
          const text = fmt.format(e);
          if (text !== null) this.out.write(`${prefix ? text.replace(/^/gm, prefix) : text}\n`);
        }
        if (e.type === 'approval_request') this.onApproval?.(t.session, e);
      },
    });
    const tail = printer?.finish();
    if (tail) this.out.write(tail);
    return end;
  }
}

export interface WaitResult {
  finished: SessionRow[];
  running: SessionRow[];
  timedOut: boolean;
  /** With `stopOnApproval`: the agents waiting on a permission request when the wait returned. */
  asking?: SessionRow[];
}

export interface WaitOptions {
  any?: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Each new permission request of a waited-for agent (once per request). */
  onApproval?: (s: SessionRow, a: ApprovalRow) => void;
  /** Return as soon as one of them waits on a permission request (the caller can answer it). */
  stopOnApproval?: boolean;
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
  opts: WaitOptions,
): Promise<WaitResult> {
  return new AgentsWait(svc, sessions, opts).run();
}

/** One waitForAgents call: which sessions ended or ask for approval, and the timers and follows that look. */
export class AgentsWait {
  readonly finished = new Map<string, SessionRow>();
  readonly asking = new Map<string, SessionRow>();
  /** Permission requests already passed to onApproval. */
  readonly told = new Set<number>();
  settled = false;
  timedOut = false;
  /** Ends the log follows. */
  private readonly ac = new AbortController();
  private backstop: NodeJS.Timeout | undefined;
  private timer: NodeJS.Timeout | undefined;
  private resolve: (r: WaitResult) => void = () => undefined;
  private reject: (e: unknown) => void = () => undefined;
  private readonly onAbort = (): void => this.settle();

  constructor(
    private readonly svc: AgentServices,
    private readonly sessions: SessionRow[],
    private readonly opts: WaitOptions,
  ) {}

  run(): Promise<WaitResult> {
    return new Promise<WaitResult>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.backstop = setInterval(() => this.check(true), BACKSTOP_MS);
      this.timer = setTimeout(() => {
        this.timedOut = true;
        this.settle();
      }, this.opts.timeoutMs);
      this.opts.signal?.addEventListener('abort', this.onAbort, { once: true });
      for (const s of this.sessions) this.watch(s);
      this.check(true);
    });
  }

  /** Look at the sessions again on their status and done lines. */
  private watch(s: SessionRow): void {
    followLog(logPathOf(this.svc, s), {
      fromTail: 0,
      signal: this.ac.signal,
      onEvent: (e) => {
        if (e.type === 'status') this.check(false);
        else if (e.type === 'done') {
          this.check(false);
          this.recheckSoon(s);
        }
      },
    }).catch(() => undefined);
  }

  /** After a `done` line, look at the row a few more times until it says ended. */
  private recheckSoon(s: SessionRow): void {
    let tries = 0;
    const again = (): void => {
      if (this.settled || this.finished.has(s.id) || ++tries > DONE_RECHECKS) return;
      this.check(false);
      setTimeout(again, DONE_RECHECK_MS).unref();
    };
    setTimeout(again, DONE_RECHECK_MS).unref();
  }

  private check(reap: boolean): void {
    if (this.settled) return;
    try {
      for (const s of this.sessions) this.look(s, reap);
    } catch (e) {
      this.stop();
      this.reject(e);
      return;
    }
    const { finished, asking } = this;
    if ((this.opts.any && finished.size > 0) || finished.size === this.sessions.length || asking.size > 0)
      this.settle();
  }

  /** Note whether one session ended, and its new permission requests. */
  private look(s: SessionRow, reap: boolean): void {
    if (this.finished.has(s.id)) return;
    if (reap) reapOrRecover(this.svc, s.id);
    const cur = getSession(this.svc.db, s.id);
    if (!cur || isTerminal(cur.status)) this.finished.set(s.id, cur ?? s);
    else if (cur.status === 'waiting' && (this.opts.onApproval || this.opts.stopOnApproval)) {
      const pending = pendingApprovals(this.svc.db, cur.id);
      for (const a of pending.filter((x) => !this.told.has(x.id))) {
        this.told.add(a.id);
        this.opts.onApproval?.(cur, a);
      }
      if (pending.length > 0 && this.opts.stopOnApproval) this.asking.set(cur.id, cur);
    }
  }

  /** Stop the timers and the follows (once). */
  private stop(): void {
    this.settled = true;
    clearInterval(this.backstop);
    clearTimeout(this.timer);
    this.ac.abort();
    this.opts.signal?.removeEventListener('abort', this.onAbort);
  }

  private settle(): void {
    if (this.settled) return;
    this.stop();
    const order = this.sessions.map((s) => s.id);
    this.resolve({
      finished: order.filter((id) => this.finished.has(id)).map((id) => this.finished.get(id)!),
      running: order
        .filter((id) => !this.finished.has(id))
        .map((id) => getSession(this.svc.db, id) ?? this.sessions.find((s) => s.id === id)!),
      timedOut: this.timedOut,
      ...(this.opts.stopOnApproval ? { asking: [...this.asking.values()] } : {}),
    });
  }
}

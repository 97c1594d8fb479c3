/**
 * What the normalisers of the JSON-line CLIs (codex, gemini, cursor, opencode) share, so each
 * CLI's normaliser keeps only what is its own: the state every run keeps (native session id,
 * files written, the turn's last text, a pending interrupt), the line loop (JSON parsing,
 * dispatch on the line's `type`, no throwing, a closing `done` at exit when the stream had none),
 * and the events every CLI reports the same way (init once per session, assistant text with its
 * updates, usage, the turn's closing `done`). Claude's normaliser uses the state and event pieces.
 */
import { extractUpdates, type AgentEventInput, type TerminalStatus } from '../core/events.js';
import { FileTracker } from '../core/tool-summary.js';
import type { Normaliser } from './runtime-adapter.js';
import { parseLine, stderrTail, type Json } from './json-line.js';

/** A parsed stdout line: a JSON object with a string `type`. */
export type Line = Json & { type: string };

/** How the CLI process ended (the argument of `Normaliser.end`). */
export type CliExit = Parameters<Normaliser['end']>[0];

/** What a normaliser knows across the lines of one CLI run; each CLI's state adds its own. */
export interface RunState {
  /** The native session id of the last `init` (a resumed session repeats it: no second init). */
  nativeId: string | null;
  /** The files the run's tool calls wrote. */
  files: FileTracker;
  /** The newest assistant text of the turn: its final answer unless more text follows. */
  lastText: string | undefined;
  /** The runtime asked for an interrupt: the turn that ends next ends `interrupted`. */
  interrupted: boolean;
}

export function newRunState(): RunState {
  return { nativeId: null, files: new FileTracker(), lastText: undefined, interrupted: false };
}

export type LineHandler<S> = (s: S, line: Line) => AgentEventInput[];

/** The entry of a dispatch table for `type` (own keys only: a line typed `constructor` has none). */
export function handlerFor<H>(table: Readonly<Record<string, H>>, type: unknown): H | undefined {
  return typeof type === 'string' && Object.hasOwn(table, type) ? table[type] : undefined;
}

/** One handler per line `type`; lines of other types give nothing. */
export function dispatch<S>(handlers: Readonly<Record<string, LineHandler<S>>>): LineHandler<S> {
  return (s, line) => handlerFor(handlers, line.type)?.(s, line) ?? [];
}

export interface LineRules<S> {
  onLine: LineHandler<S>;
  /** Events at exit; called once, only when no `done` was produced by a line. */
  onExit(s: S, exit: CliExit): AgentEventInput[];
}

/**
 * A Normaliser over JSON lines: parsing, no throwing, and a closing `done` at exit when the
 * stream had none. `onExit` decides that done (status, error text).
 */
export class JsonLineNormaliser<S extends RunState> implements Normaliser {
  // Whether the newest event so far is a `done` (a CLI that runs another turn reopens the run).
  private finished = false;

  constructor(
    readonly state: S,
    private readonly rules: LineRules<S>,
  ) {}

  line(raw: string): AgentEventInput[] {
    const parsed = parseLine(raw);
    if (!parsed) return [];
    try {
      const out = this.rules.onLine(this.state, parsed);
      for (const e of out) this.finished = e.type === 'done';
      return out;
    } catch {
      return [];
    }
  }

  noteInterrupt(): void {
    this.state.interrupted = true;
  }

  end(exit: CliExit): AgentEventInput[] {
    if (this.finished) return [];
    this.finished = true;
    try {
      return this.rules.onExit(this.state, exit);
    } catch {
      return [{ type: 'done', status: 'failed', error: 'the agent CLI exited' }];
    }
  }
}

/** Whether `id` is a native session id not reported yet; if so it becomes the run's. */
export function isNewSession(s: RunState, id: string | undefined): id is string {
  if (!id || id === s.nativeId) return false;
  s.nativeId = id;
  return true;
}

/** An assistant message → `text` plus one `update` per `[UPDATE] …` line; the turn's final text so far. */
export function assistantText(s: RunState, text: string): AgentEventInput[] {
  s.lastText = text;
  return [{ type: 'text', text }, ...extractUpdates(text).map((u): AgentEventInput => ({ type: 'update', text: u }))];
}

/** How a turn ends: an interrupt the runtime asked for wins over what the CLI reported. */
export function turnStatus(s: RunState, failed: boolean): TerminalStatus {
  return s.interrupted ? 'interrupted' : failed ? 'failed' : 'done';
}

export function usageEvent(u: {
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  costUsd?: number | undefined;
}): AgentEventInput {
  return {
    type: 'usage',
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cacheReadTokens: u.cacheReadTokens,
    ...(u.costUsd !== undefined ? { costUsd: u.costUsd } : {}),
  };
}

export interface TurnEnd {
  status: TerminalStatus;
  /** Left out when the turn failed. */
  finalText?: string | undefined;
  durationMs?: number | undefined;
  /** Left out when zero. */
  costUsd?: number | undefined;
  /** Kept only when the turn failed. */
  error?: string | undefined;
}

/** The `done` that closes a turn, with the files the run wrote. */
export function doneEvent(s: RunState, end: TurnEnd): AgentEventInput {
  return {
    type: 'done',
    status: end.status,
    ...(end.finalText !== undefined && end.status !== 'failed' ? { finalText: end.finalText } : {}),
    ...(end.durationMs !== undefined ? { durationMs: end.durationMs } : {}),
    ...(end.costUsd ? { costUsd: end.costUsd } : {}),
    ...s.files.snapshot(),
    ...(end.status === 'failed' && end.error !== undefined ? { error: end.error } : {}),
  };
}

/** doneEvent, then the next turn starts afresh: no interrupt pending, no final text yet. */
export function endTurn(s: RunState, end: TurnEnd): AgentEventInput {
  const event = doneEvent(s, end);
  s.interrupted = false;
  s.lastText = undefined;
  return event;
}

/** The `done` for a CLI that exited without its own final event. */
export function exitDone(
  cli: string,
  exit: CliExit,
  s: RunState,
  o: {
    costUsd?: number;
    /** Whether exit code 0 means the turn completed (opencode 1.18 has no final event). */
    zeroIsDone?: boolean;
  } = {},
): AgentEventInput[] {
  const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
  const tail = stderrTail(exit.stderr);
  const status: TerminalStatus = s.interrupted
    ? 'interrupted'
    : o.zeroIsDone && exit.code === 0 && !exit.signal
      ? 'done'
      : 'failed';
  const error = `${cli} exited with ${how}${tail ? `: ${tail}` : ' before finishing the turn'}`;
  return [doneEvent(s, { status, finalText: s.lastText, costUsd: o.costUsd, error })];
}

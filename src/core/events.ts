/**
 * The one event union every runtime adapter normalises into. Each line of a session log
 * (`<logs>/<session>.ndjson`) is one AgentEvent; followers (`klaude logs -f`, an attached
 * `klaude start`, the dashboard) read only this shape, whatever CLI produced it.
 * Pure: imports nothing of the project.
 */
import type { SessionStatus } from './status.js';

export type TerminalStatus = 'done' | 'failed' | 'interrupted' | 'cancelled';

/** Why a model request is retried: no connection, 429, 529/overloaded, or another server error. */
export type RetryKind = 'unreachable' | 'rate_limit' | 'overloaded' | 'server';

interface Base {
  /** Epoch ms when klaude wrote the line. */
  ts: number;
}

export type AgentEvent = Base &
  (
    | { type: 'init'; runtime: string; nativeSessionId: string; model?: string; cwd?: string }
    /** A prompt or follow-up message sent to the agent; `images`: what was sent with it (klaude message --image, the web page). */
    | {
        type: 'user';
        text: string;
        source?: 'start' | 'message' | 'share' | 'onStop' | 'recover';
        images?: { mediaType: string; bytes: number }[];
      }
    /** Assistant text: one complete block. It closes (and replaces) the `text_delta`s before it. */
    | { type: 'text'; text: string }
    /**
     * A piece of assistant text still being written (coalesced: at most one every ~100 ms per
     * agent). Followers show it at once and replace the pieces with the `text` that follows.
     */
    | { type: 'text_delta'; text: string }
    /** A piece of the model's thinking, as it streams (shown dim; no closing event of its own). */
    | { type: 'thinking_delta'; text: string }
    /** The model API failed and the CLI will try again (claude `system/api_retry`). */
    | { type: 'retry'; attempt: number; maxAttempts?: number; delayMs?: number; reason: string; kind: RetryKind }
    /** `summary` is the key argument shown on one line (command, file path, pattern, url…). */
    | { type: 'tool_call'; id: string; name: string; summary: string; input?: unknown }
    /** `blocked`: what the agent's sandbox refused during the call, one line each (sandbox/violations.ts). */
    | { type: 'tool_result'; id: string; name?: string; isError: boolean; output: string; blocked?: string[] }
    | { type: 'usage'; inputTokens?: number; outputTokens?: number; cacheReadTokens?: number; costUsd?: number }
    /** `[UPDATE] …` reported by the agent for its parent. */
    | { type: 'update'; text: string }
    | { type: 'status'; status: SessionStatus; reason?: string }
    | { type: 'error'; message: string }
    /**
     * The agent asks permission for a tool call (claude `can_use_tool`); the session is `waiting`
     * until an `approval_answer` with the same requestId. `approvalId` is klaude's row id (set by
     * the runtime); `rule` is what "allow always" would add, e.g. `Bash(npm test)`.
     */
    | {
        type: 'approval_request';
        requestId: string;
        approvalId?: number;
        tool: string;
        summary: string;
        input?: unknown;
        reason?: string;
        rule?: string;
        suggestions?: unknown;
      }
    /** How a permission request was answered; `by`: person, parent, timeout, or runtime (cancelled). */
    | {
        type: 'approval_answer';
        requestId: string;
        approvalId?: number;
        behavior: 'allow' | 'deny' | 'cancelled';
        always?: boolean;
        message?: string;
        by?: string;
      }
    /** An on-stop prompt's answer (config `agents.onStop`), stored as a named artifact; `costUsd` is that turn's. */
    | { type: 'artifact'; name: string; text: string; costUsd?: number }
    /**
     * The run died mid-turn and klaude resumed the same conversation with a resume prompt built
     * from the checkpoint (`mode: 'auto'`), or marked it for the person (`mode: 'ask'`).
     */
    | { type: 'recovered'; cause: string; mode: 'auto' | 'ask' }
    /** Started later: the session waited in the run queue (position when it was queued). */
    | { type: 'queued'; position: number; reason?: string }
    | {
        type: 'done';
        status: TerminalStatus;
        finalText?: string;
        costUsd?: number;
        durationMs?: number;
        numTurns?: number;
        filesEdited?: string[];
        filesCreated?: string[];
        error?: string;
      }
  );

export type AgentEventType = AgentEvent['type'];
export type EventOf<T extends AgentEventType> = Extract<AgentEvent, { type: T }>;

/** Distributive Omit, so each member keeps its own fields. */
export type WithoutTs<E> = E extends unknown ? Omit<E, 'ts'> : never;
export type AgentEventInput = WithoutTs<AgentEvent>;

/** `[UPDATE] text` anywhere at the start of a line of assistant text. */
export function extractUpdates(text: string): string[] {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*\[UPDATE\]\s*(.+?)\s*$/.exec(line);
    if (m?.[1]) out.push(m[1]);
  }
  return out;
}

/** The one-line description of a retry: "API unreachable — retry 3/10 in 8 s: connection refused". */
export function describeRetry(e: {
  attempt: number;
  maxAttempts?: number;
  delayMs?: number;
  reason: string;
  kind: RetryKind;
}): string {
  const what =
    e.kind === 'unreachable'
      ? 'API unreachable'
      : e.kind === 'rate_limit'
        ? 'rate limited'
        : e.kind === 'overloaded'
          ? 'API overloaded'
          : 'API error';
  const n = e.maxAttempts ? `${e.attempt}/${e.maxAttempts}` : `${e.attempt}`;
  const wait =
    e.delayMs !== undefined
      ? ` in ${e.delayMs < 1000 ? `${Math.round(e.delayMs)} ms` : `${e.delayMs < 10_000 ? (e.delayMs / 1000).toFixed(1) : Math.round(e.delayMs / 1000)} s`}`
      : '';
  const reason = e.reason.trim().split('\n')[0] ?? '';
  return `${what} — retry ${n}${wait}${reason ? `: ${reason}` : ''}`;
}

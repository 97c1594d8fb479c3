/**
 * The one event union every runtime adapter normalises into. Each line of a session log
 * (`<logs>/<session>.ndjson`) is one AgentEvent; followers (`klaude logs -f`, an attached
 * `klaude start`, the dashboard) read only this shape, whatever CLI produced it.
 * Pure: imports nothing of the project.
 */
import type { SessionStatus } from './status.js';

export type TerminalStatus = 'done' | 'failed' | 'interrupted';

interface Base {
  /** Epoch ms when klaude wrote the line. */
  ts: number;
}

export type AgentEvent = Base &
  (
    | { type: 'init'; runtime: string; nativeSessionId: string; model?: string; cwd?: string }
    /** A prompt or follow-up message sent to the agent. */
    | { type: 'user'; text: string; source?: 'start' | 'message' | 'share' }
    /** Assistant text: one complete block (not a token delta). */
    | { type: 'text'; text: string }
    /** `summary` is the key argument shown on one line (command, file path, pattern, url…). */
    | { type: 'tool_call'; id: string; name: string; summary: string; input?: unknown }
    | { type: 'tool_result'; id: string; name?: string; isError: boolean; output: string }
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

/**
 * Small pieces shared by the non-Claude normalisers: safe field access on parsed JSON lines,
 * the closing `done` when a CLI exits without reporting one, and prompt assembly for CLIs that
 * have no way to append to their system prompt. Pure.
 */
import type { AgentEventInput, TerminalStatus } from '../core/events.js';
import { stripEscapes } from '../lib/escapes.js';
import type { Normaliser } from './runtime-adapter.js';

export type Json = Record<string, unknown>;
export const isObj = (x: unknown): x is Json => typeof x === 'object' && x !== null && !Array.isArray(x);
export const str = (x: unknown): string | undefined => (typeof x === 'string' ? x : undefined);
export const num = (x: unknown): number | undefined => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);

/** A stdout line as a JSON object with a string `type`, or null. */
export function parseLine(raw: string): (Json & { type: string }) | null {
  const t = raw.trim();
  if (!t.startsWith('{')) return null;
  try {
    const o: unknown = JSON.parse(t);
    return isObj(o) && typeof o.type === 'string' ? (o as Json & { type: string }) : null;
  } catch {
    return null;
  }
}

/** The last few lines of stderr, on one line (for error messages). */
export function stderrTail(stderr: string, lines = 3): string {
  return stderr
    .trim()
    .split('\n')
    .map((l) => stripEscapes(l).trim())
    .filter((l) => l !== '')
    .slice(-lines)
    .join(' | ');
}

/**
 * Wraps a per-line handler into a Normaliser: JSON parsing, no throwing, and a closing `done` at
 * exit when the stream had none. `onExit` decides that done (status, error text).
 */
export function normaliserFrom(o: {
  onLine(line: Json & { type: string }): AgentEventInput[];
  onInterrupt(): void;
  /** Events at exit; called once, only when no `done` was produced by a line. */
  onExit(exit: { code: number | null; signal: NodeJS.Signals | null; stderr: string }): AgentEventInput[];
}): Normaliser {
  // Whether the newest event so far is a `done` (a CLI that runs another turn reopens the run).
  let finished = false;
  return {
    line(raw) {
      const parsed = parseLine(raw);
      if (!parsed) return [];
      try {
        const out = o.onLine(parsed);
        for (const e of out) finished = e.type === 'done';
        return out;
      } catch {
        return [];
      }
    },
    noteInterrupt() {
      o.onInterrupt();
    },
    end(exit) {
      if (finished) return [];
      finished = true;
      try {
        return o.onExit(exit);
      } catch {
        return [{ type: 'done', status: 'failed', error: 'the agent CLI exited' }];
      }
    },
  };
}

/** The `done` for a CLI that exited without its own final event. */
export function exitDone(
  cli: string,
  exit: { code: number | null; signal: NodeJS.Signals | null; stderr: string },
  s: {
    interrupted: boolean;
    lastText?: string;
    files: { filesEdited: string[]; filesCreated: string[] };
    costUsd?: number;
  },
  /** Whether exit code 0 means the turn completed (opencode 1.18 has no final event). */
  zeroIsDone = false,
): AgentEventInput[] {
  const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
  const tail = stderrTail(exit.stderr);
  const status: TerminalStatus = s.interrupted
    ? 'interrupted'
    : zeroIsDone && exit.code === 0 && !exit.signal
      ? 'done'
      : 'failed';
  return [
    {
      type: 'done',
      status,
      ...(s.lastText !== undefined && status !== 'failed' ? { finalText: s.lastText } : {}),
      ...(s.costUsd ? { costUsd: s.costUsd } : {}),
      ...s.files,
      ...(status === 'failed'
        ? { error: `${cli} exited with ${how}${tail ? `: ${tail}` : ' before finishing the turn'}` }
        : {}),
    },
  ];
}

/**
 * The first message for a CLI without a system-prompt flag: klaude's instructions (agent
 * definition body + preamble) ahead of the task, only when a session starts (a resumed session
 * already has them).
 */
export function withInstructions(
  prompt: string | undefined,
  instructions: string | null | undefined,
  resume: boolean,
): string {
  const p = prompt ?? '';
  if (resume || !instructions || instructions.trim() === '') return p;
  return `<instructions>\n${instructions.trim()}\n</instructions>\n\n${p}`;
}

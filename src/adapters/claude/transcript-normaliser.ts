/**
 * Claude Code's own transcript (`<config dir>/projects/<encoded cwd>/<claude id>.jsonl`) → the
 * AgentEvents of the turns that ran interactively (the foreground root, a checked-out agent, a
 * `talk` session). The facts relied on are in docs/transcript-format.md, checked against claude
 * 2.1.197:
 *
 *   user, message.content string           → user (the prompt typed); `<command-name>/x` → user "/x"
 *   user, content blocks: tool_result      → tool_result (output clipped, tool name from its call)
 *   assistant, content block text          → text     (one entry per content block)
 *   assistant, content block tool_use      → tool_call (key argument as summary)
 *   assistant with isApiErrorMessage       → error
 *   user `[Request interrupted by user…]`  → status interrupted (the person ended the turn: Esc, or
 *                                            a declined permission "for tool use")
 * Skipped: entries written by headless runs (`entrypoint: "sdk-cli"`: the session log has those
 * turns already), sub-agent entries (`isSidechain`), meta entries (`isMeta`: caveats, command
 * output), compact summaries, and every other type (attachment, queue-operation, summary,
 * file-history-snapshot, system…). `ts` is the entry's `timestamp`.
 */
import type { AgentEvent } from '../../core/events.js';
import { contentText, INTERRUPTED_MARK } from './normaliser.js';
import { isObj, type Json } from '../json-line.js';
import { clip, toolSummary } from '../../core/tool-summary.js';

export interface TranscriptNormaliser {
  /** One transcript line → the events it stands for (none for skipped or broken lines). */
  line(raw: string): AgentEvent[];
}

const COMMAND = /<command-name>\s*(\/?[^<\s]+)\s*<\/command-name>(?:[\s\S]*<command-args>([\s\S]*?)<\/command-args>)?/;

function interruptedEvent(text: string, ts: number): AgentEvent | null {
  if (!text.trim().startsWith(INTERRUPTED_MARK)) return null;
  const reason = text.includes('for tool use') ? 'permission declined' : 'by you';
  return { ts, type: 'status', status: 'interrupted', reason };
}

const QUIT_COMMANDS = new Set(['/exit', '/quit']);

function userText(text: string): string | null {
  const t = text.trim();
  if (t === '') return null;
  const cmd = COMMAND.exec(t);
  if (cmd) {
    const name = cmd[1]!.startsWith('/') ? cmd[1]! : `/${cmd[1]}`;
    // Leaving claude is no prompt of the conversation (its timeline ends there anyway).
    if (QUIT_COMMANDS.has(name)) return null;
    return `${name}${cmd[2]?.trim() ? ` ${cmd[2].trim()}` : ''}`;
  }
  if (t.startsWith('<local-command-') || t.startsWith('<command-') || t.startsWith('[Request interrupted')) return null;
  return t;
}

/** Tool names by tool_use id: a tool_result carries only the id. */
type ToolNames = Map<string, string>;

function userEvents(toolNames: ToolNames, o: Json, ts: number): AgentEvent[] {
  const msg = o.message;
  if (!isObj(msg)) return [];
  if (typeof msg.content === 'string') {
    const text = userText(msg.content);
    return text === null ? [] : [{ ts, type: 'user', text }];
  }
  if (!Array.isArray(msg.content)) return [];
  const out: AgentEvent[] = [];
  const typed: string[] = [];
  for (const b of msg.content) {
    if (!isObj(b)) continue;
    if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
      const name = toolNames.get(b.tool_use_id);
      out.push({
        ts,
        type: 'tool_result',
        id: b.tool_use_id,
        ...(name ? { name } : {}),
        isError: b.is_error === true,
        output: clip(contentText(b.content)),
      });
    } else if (b.type === 'text' && typeof b.text === 'string') {
      const stop = interruptedEvent(b.text, ts);
      if (stop) out.push(stop);
      const t = userText(b.text);
      if (t !== null) typed.push(t);
    }
  }
  if (typed.length) out.unshift({ ts, type: 'user', text: typed.join('\n') });
  return out;
}

function assistantEvents(toolNames: ToolNames, o: Json, ts: number): AgentEvent[] {
  const msg = o.message;
  if (!isObj(msg) || !Array.isArray(msg.content)) return [];
  const out: AgentEvent[] = [];
  for (const b of msg.content) {
    if (!isObj(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '') {
      out.push(
        o.isApiErrorMessage === true ? { ts, type: 'error', message: b.text } : { ts, type: 'text', text: b.text },
      );
    } else if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') {
      toolNames.set(b.id, b.name);
      out.push({
        ts,
        type: 'tool_call',
        id: b.id,
        name: b.name,
        summary: toolSummary(b.name, b.input),
        input: b.input,
      });
    }
  }
  return out;
}

/** A transcript line that stands for events: a user or assistant entry of this conversation, with its time. */
function entryOf(raw: string): { o: Json; ts: number } | null {
  let o: unknown;
  try {
    o = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isObj(o) || (o.type !== 'user' && o.type !== 'assistant')) return null;
  if (o.entrypoint === 'sdk-cli' || o.isSidechain === true || o.isMeta === true || o.isCompactSummary === true)
    return null;
  const ts = typeof o.timestamp === 'string' ? Date.parse(o.timestamp) : NaN;
  if (!Number.isFinite(ts)) return null;
  return { o, ts };
}

export function createTranscriptNormaliser(): TranscriptNormaliser {
  const toolNames: ToolNames = new Map();
  return {
    line(raw) {
      const entry = entryOf(raw);
      if (!entry) return [];
      try {
        return entry.o.type === 'user'
          ? userEvents(toolNames, entry.o, entry.ts)
          : assistantEvents(toolNames, entry.o, entry.ts);
      } catch {
        return [];
      }
    },
  };
}

/**
 * Gemini CLI `-p … --output-format stream-json` lines → AgentEvents (docs/cli-facts.md §4.2; seen
 * with @google/gemini-cli 0.61.0).
 *
 *   init {session_id, model}               → init
 *   message role assistant (delta pieces)  → text_delta per piece (coalesced by the runtime), and
 *                                            one `text` per block, written when the next non-text line
 *                                            (tool_use, result, error) or the exit comes
 *   tool_use {tool_name, tool_id, parameters} → tool_call (key argument as summary)
 *   tool_result {tool_id, status, output, error} → tool_result; successful write_file counts as
 *                                            created when the file did not exist at its tool_use (gemini
 *                                            reports no output for it), else edited; replace/edit as edited
 *   error {severity, message}              → error
 *   result {status, stats, error}          → usage + done
 * The user message echo and unknown lines give nothing. Gemini reports no cost.
 */
import { existsSync } from 'node:fs';
import type { AgentEventInput } from '../../core/events.js';
import type { Normaliser } from '../runtime-adapter.js';
import { isObj, num, str } from '../json-line.js';
import {
  assistantText,
  dispatch,
  endTurn,
  exitDone,
  isNewSession,
  JsonLineNormaliser,
  newRunState,
  turnStatus,
  usageEvent,
  type Line,
  type LineHandler,
  type RunState,
} from '../normaliser-kit.js';
import { clip, oneLine, toolSummary } from '../../core/tool-summary.js';

/** Gemini tool name → the argument that says what the call does. */
const KEY_ARG: Record<string, readonly string[]> = {
  run_shell_command: ['command'],
  read_file: ['absolute_path', 'file_path', 'path'],
  read_many_files: ['paths', 'include'],
  write_file: ['file_path', 'absolute_path'],
  replace: ['file_path', 'absolute_path'],
  edit: ['file_path', 'absolute_path'],
  list_directory: ['dir_path', 'path'],
  glob: ['pattern'],
  search_file_content: ['pattern'],
  grep: ['pattern'],
  google_web_search: ['query'],
  web_fetch: ['prompt', 'url'],
  save_memory: ['fact'],
};

export function geminiToolSummary(name: string, params: unknown): string {
  if (isObj(params)) {
    for (const k of KEY_ARG[name] ?? []) {
      const v = params[k];
      if (typeof v === 'string' && v !== '') return oneLine(v);
      if (Array.isArray(v) && v.length > 0) return oneLine(v.filter((x) => typeof x === 'string').join(' '));
    }
  }
  return toolSummary(name, params);
}

const FILE_TOOLS = new Set(['write_file', 'replace', 'edit']);

/** `[API Error: {"error":{"message":"…"}}]` → the message inside. */
export function geminiErrorMessage(text: string | undefined): string | undefined {
  if (!text) return text;
  const m = /^\[API Error: ([\s\S]*)\]$/.exec(text.trim());
  if (!m) return text;
  try {
    const o: unknown = JSON.parse(m[1]!);
    const e = isObj(o) && isObj(o.error) ? o.error : null;
    const msg = e ? str(e.message) : undefined;
    if (msg) return `API error${typeof e?.code === 'number' ? ` ${e.code}` : ''}: ${msg}`;
  } catch {
    /* not JSON */
  }
  return `API error: ${m[1]}`;
}

export interface GeminiNormaliserOptions {
  /** Whether a file exists (write_file of a missing file creates it). Default: the file system. */
  exists?: (path: string) => boolean;
}

interface GeminiState extends RunState {
  exists: (path: string) => boolean;
  /** Tool calls waiting for their result: the tool, and for file tools the path and whether it existed. */
  calls: Map<string, { name: string; path?: string; existed?: boolean }>;
  /** Assistant text not yet written as a `text` event. */
  pending: string;
}

function safeExists(s: GeminiState, p: string): boolean {
  try {
    return s.exists(p);
  } catch {
    return true;
  }
}

/** The assistant text collected so far, as one block. */
function flush(s: GeminiState): AgentEventInput[] {
  const text = s.pending;
  s.pending = '';
  if (text.trim() === '') return [];
  return assistantText(s, text);
}

function onMessage(s: GeminiState, o: Line): AgentEventInput[] {
  if (o.role !== 'assistant' || typeof o.content !== 'string') return [];
  // Whole messages (delta absent) each stand alone; delta pieces join up.
  if (o.delta === true) {
    s.pending += o.content;
    return o.content === '' ? [] : [{ type: 'text_delta', text: o.content }];
  }
  const out = flush(s);
  s.pending = o.content;
  return [...out, ...flush(s)];
}

function onToolUse(s: GeminiState, o: Line): AgentEventInput[] {
  const id = str(o.tool_id) ?? '';
  const name = str(o.tool_name) ?? 'tool';
  const params = o.parameters;
  const p = isObj(params) ? (str(params.file_path) ?? str(params.absolute_path)) : undefined;
  // gemini reports no output for write_file: whether it creates the file is known only now.
  s.calls.set(id, { name, ...(p ? { path: p, existed: name === 'write_file' ? safeExists(s, p) : true } : {}) });
  return [{ type: 'tool_call', id, name, summary: geminiToolSummary(name, params), input: params }];
}

function onToolResult(s: GeminiState, o: Line): AgentEventInput[] {
  const id = str(o.tool_id) ?? '';
  const call = s.calls.get(id);
  s.calls.delete(id);
  const ok = o.status === 'success';
  const errorText = isObj(o.error) ? str(o.error.message) : str(o.error);
  const output = str(o.output) ?? (ok ? '' : (errorText ?? String(o.status ?? 'error')));
  if (ok && call?.path && FILE_TOOLS.has(call.name)) {
    s.files.record(
      call.path,
      call.name === 'write_file' && (call.existed === false || /created/i.test(output)) ? 'created' : 'edited',
    );
  }
  return [{ type: 'tool_result', id, ...(call ? { name: call.name } : {}), isError: !ok, output: clip(output) }];
}

function onResult(s: GeminiState, o: Line): AgentEventInput[] {
  const out = flush(s);
  const stats = isObj(o.stats) ? o.stats : {};
  const cached = num(stats.cached) ?? 0;
  const input = num(stats.input_tokens) ?? num(stats.input) ?? 0;
  out.push(
    usageEvent({
      inputTokens: Math.max(0, input - cached),
      outputTokens: num(stats.output_tokens) ?? 0,
      cacheReadTokens: cached,
    }),
  );
  const error = geminiErrorMessage(isObj(o.error) ? str(o.error.message) : str(o.error));
  out.push(
    endTurn(s, {
      status: turnStatus(s, o.status !== 'success'),
      finalText: s.lastText,
      durationMs: num(stats.duration_ms),
      error: error ?? `gemini reported ${str(o.status) ?? 'an error'}`,
    }),
  );
  return out;
}

const GEMINI_LINES: Readonly<Record<string, LineHandler<GeminiState>>> = {
  init: (s, o) => {
    const id = str(o.session_id);
    if (!isNewSession(s, id)) return [];
    const model = str(o.model);
    return [{ type: 'init', runtime: 'gemini', nativeSessionId: id, ...(model ? { model } : {}) }];
  },
  message: onMessage,
  tool_use: (s, o) => [...flush(s), ...onToolUse(s, o)],
  tool_result: (s, o) => [...flush(s), ...onToolResult(s, o)],
  error: (s, o) => [
    ...flush(s),
    {
      type: 'error',
      message: `${o.severity === 'warning' ? 'warning: ' : ''}${str(o.message) ?? 'gemini reported an error'}`,
    },
  ],
  result: onResult,
};

export function createGeminiNormaliser(opts: GeminiNormaliserOptions = {}): Normaliser {
  return new JsonLineNormaliser<GeminiState>(
    { ...newRunState(), exists: opts.exists ?? existsSync, calls: new Map(), pending: '' },
    {
      onLine: dispatch(GEMINI_LINES),
      onExit: (s, exit) => {
        const text = flush(s);
        return [...text, ...exitDone('gemini', exit, s)];
      },
    },
  );
}

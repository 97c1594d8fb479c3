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
import { extractUpdates, type AgentEventInput } from '../../core/events.js';
import type { Normaliser } from '../runtime-adapter.js';
import { exitDone, isObj, normaliserFrom, num, str, type Json } from '../json-line.js';
import { clip, FileTracker, oneLine, toolSummary } from '../../core/tool-summary.js';

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

export function createGeminiNormaliser(opts: GeminiNormaliserOptions = {}): Normaliser {
  const exists = opts.exists ?? existsSync;
  let nativeId: string | null = null;
  const calls = new Map<string, { name: string; path?: string; existed?: boolean }>();
  const files = new FileTracker();
  let pending = '';
  let lastText: string | undefined;
  let interrupted = false;

  const safeExists = (p: string): boolean => {
    try {
      return exists(p);
    } catch {
      return true;
    }
  };

  /** The assistant text collected so far, as one block. */
  const flush = (): AgentEventInput[] => {
    const text = pending;
    pending = '';
    if (text.trim() === '') return [];
    lastText = text;
    return [{ type: 'text', text }, ...extractUpdates(text).map((u): AgentEventInput => ({ type: 'update', text: u }))];
  };

  const onToolUse = (o: Json): AgentEventInput[] => {
    const id = str(o.tool_id) ?? '';
    const name = str(o.tool_name) ?? 'tool';
    const params = o.parameters;
    const p = isObj(params) ? (str(params.file_path) ?? str(params.absolute_path)) : undefined;
    // gemini reports no output for write_file: whether it creates the file is known only now.
    calls.set(id, { name, ...(p ? { path: p, existed: name === 'write_file' ? safeExists(p) : true } : {}) });
    return [{ type: 'tool_call', id, name, summary: geminiToolSummary(name, params), input: params }];
  };

  const onToolResult = (o: Json): AgentEventInput[] => {
    const id = str(o.tool_id) ?? '';
    const call = calls.get(id);
    calls.delete(id);
    const ok = o.status === 'success';
    const errorText = isObj(o.error) ? str(o.error.message) : str(o.error);
    const output = str(o.output) ?? (ok ? '' : (errorText ?? String(o.status ?? 'error')));
    if (ok && call?.path && FILE_TOOLS.has(call.name)) {
      files.record(
        call.path,
        call.name === 'write_file' && (call.existed === false || /created/i.test(output)) ? 'created' : 'edited',
      );
    }
    return [{ type: 'tool_result', id, ...(call ? { name: call.name } : {}), isError: !ok, output: clip(output) }];
  };

  const onResult = (o: Json): AgentEventInput[] => {
    const out = flush();
    const stats = isObj(o.stats) ? o.stats : {};
    const cached = num(stats.cached) ?? 0;
    const input = num(stats.input_tokens) ?? num(stats.input) ?? 0;
    out.push({
      type: 'usage',
      inputTokens: Math.max(0, input - cached),
      outputTokens: num(stats.output_tokens) ?? 0,
      cacheReadTokens: cached,
    });
    const ok = o.status === 'success';
    const status = interrupted ? 'interrupted' : ok ? 'done' : 'failed';
    const error = geminiErrorMessage(isObj(o.error) ? str(o.error.message) : str(o.error));
    out.push({
      type: 'done',
      status,
      ...(lastText !== undefined && status !== 'failed' ? { finalText: lastText } : {}),
      ...(num(stats.duration_ms) !== undefined ? { durationMs: num(stats.duration_ms) } : {}),
      ...files.snapshot(),
      ...(status === 'failed' ? { error: error ?? `gemini reported ${str(o.status) ?? 'an error'}` } : {}),
    });
    interrupted = false;
    lastText = undefined;
    return out;
  };

  return normaliserFrom({
    onLine(o) {
      switch (o.type) {
        case 'init': {
          const id = str(o.session_id);
          if (!id || id === nativeId) return [];
          nativeId = id;
          const model = str(o.model);
          return [{ type: 'init', runtime: 'gemini', nativeSessionId: id, ...(model ? { model } : {}) }];
        }
        case 'message':
          if (o.role === 'assistant' && typeof o.content === 'string') {
            // Whole messages (delta absent) each stand alone; delta pieces join up.
            if (o.delta === true) {
              pending += o.content;
              return o.content === '' ? [] : [{ type: 'text_delta', text: o.content }];
            }
            const out = flush();
            pending = o.content;
            return [...out, ...flush()];
          }
          return [];
        case 'tool_use':
          return [...flush(), ...onToolUse(o)];
        case 'tool_result':
          return [...flush(), ...onToolResult(o)];
        case 'error':
          return [
            ...flush(),
            {
              type: 'error',
              message: `${o.severity === 'warning' ? 'warning: ' : ''}${str(o.message) ?? 'gemini reported an error'}`,
            },
          ];
        case 'result':
          return onResult(o);
        default:
          return [];
      }
    },
    onInterrupt() {
      interrupted = true;
    },
    onExit(exit) {
      const text = flush();
      return [...text, ...exitDone('gemini', exit, { interrupted, lastText, files: files.snapshot() })];
    },
  });
}

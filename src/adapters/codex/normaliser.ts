/**
 * Codex `exec --json` lines → AgentEvents (docs/cli-facts.md §4.1; seen with codex-cli 0.169.0).
 *
 *   thread.started {thread_id}            → init (the native id; `exec resume` repeats the same one)
 *   item.started command_execution        → tool_call `shell` (command, `bash -lc '…'` unwrapped)
 *   item.completed command_execution      → tool_result (exit code ≠ 0, failed or declined = error)
 *   item.started/completed file_change    → tool_call `apply_patch` (the paths) / tool_result; added
 *                                           files count as created, updated ones as edited
 *   mcp_tool_call, web_search, todo_list  → tool_call + tool_result
 *   item.completed agent_message          → text (+ `update` per `[UPDATE] …` line)
 *   item.completed error, error {message} → error (codex reports warnings and retries this way)
 *   turn.completed {usage}                → usage + done (final text = the last agent message)
 *   turn.failed {error}                   → done failed
 * reasoning, turn.started and unknown lines give nothing. Codex reports no cost.
 */
import { extractUpdates, type AgentEventInput } from '../../core/events.js';
import type { Normaliser } from '../runtime-adapter.js';
import { retryKind } from '../claude/stream.js';
import { exitDone, isObj, normaliserFrom, num, str, type Json } from '../json-line.js';
import { clip, FileTracker, oneLine, toolSummary } from '../../core/tool-summary.js';

/** `/bin/bash -lc 'echo hi'` → `echo hi` (codex wraps every command in a login shell). */
export function unwrapShell(command: string): string {
  const m = /^(?:\/[\w/]*\/)?(?:ba|z)?sh\s+-l?c\s+(['"])([\s\S]*)\1\s*$/.exec(command.trim());
  if (!m) return command;
  const body = m[2]!;
  return m[1] === "'" ? body.replace(/'\\''/g, "'") : body.replace(/\\(["\\$`])/g, '$1');
}

/** Codex passes API errors on as the response body: `{"error":{"message":…}}` → that message. */
export function codexErrorMessage(text: string | undefined, fallback: string): string {
  if (!text) return fallback;
  try {
    const o: unknown = JSON.parse(text);
    if (isObj(o)) {
      const e = isObj(o.error) ? o.error : o;
      const m = str(e.message);
      if (m) return m;
    }
  } catch {
    /* plain text */
  }
  return text;
}

function commandOf(item: Json): string {
  const c = item.command;
  if (typeof c === 'string') return unwrapShell(c);
  if (Array.isArray(c)) return unwrapShell(c.filter((x) => typeof x === 'string').join(' '));
  return '';
}

function changesOf(item: Json): { path: string; kind: string }[] {
  if (!Array.isArray(item.changes)) return [];
  return item.changes
    .filter(isObj)
    .map((c) => ({ path: str(c.path) ?? '', kind: str(c.kind) ?? 'update' }))
    .filter((c) => c.path !== '');
}

export function createCodexNormaliser(): Normaliser {
  let nativeId: string | null = null;
  const started = new Set<string>();
  const files = new FileTracker();
  let lastText: string | undefined;
  let interrupted = false;

  const call = (item: Json): AgentEventInput[] => {
    const id = str(item.id) ?? '';
    if (started.has(id)) return [];
    started.add(id);
    switch (item.type) {
      case 'command_execution': {
        const command = commandOf(item);
        return [{ type: 'tool_call', id, name: 'shell', summary: oneLine(command), input: { command } }];
      }
      case 'file_change': {
        const changes = changesOf(item);
        const summary = oneLine(changes.map((c) => `${c.kind} ${c.path}`).join(', '));
        return [{ type: 'tool_call', id, name: 'apply_patch', summary, input: { changes } }];
      }
      case 'mcp_tool_call': {
        const name = `mcp__${str(item.server) ?? 'mcp'}__${str(item.tool) ?? 'tool'}`;
        return [{ type: 'tool_call', id, name, summary: toolSummary(name, item.arguments), input: item.arguments }];
      }
      case 'web_search':
        return [
          {
            type: 'tool_call',
            id,
            name: 'web_search',
            summary: oneLine(str(item.query) ?? ''),
            input: { query: item.query },
          },
        ];
      case 'todo_list': {
        const items = Array.isArray(item.items) ? item.items.filter(isObj) : [];
        const done = items.filter((t) => t.completed === true).length;
        return [
          {
            type: 'tool_call',
            id,
            name: 'todo_list',
            summary: `${items.length} todos, ${done} done`,
            input: { items },
          },
        ];
      }
      default:
        return [];
    }
  };

  const result = (item: Json): AgentEventInput[] => {
    const id = str(item.id) ?? '';
    const status = str(item.status);
    switch (item.type) {
      case 'command_execution': {
        const code = num(item.exit_code);
        const isError = status === 'failed' || status === 'declined' || (code !== undefined && code !== 0);
        const out = str(item.aggregated_output) ?? '';
        const output =
          status === 'declined' && out === ''
            ? 'declined'
            : code !== undefined && code !== 0
              ? `${out}${out && !out.endsWith('\n') ? '\n' : ''}exit code ${code}`
              : out;
        return [{ type: 'tool_result', id, name: 'shell', isError, output: clip(output) }];
      }
      case 'file_change': {
        const ok = status === 'completed';
        const changes = changesOf(item);
        if (ok)
          for (const c of changes)
            if (c.kind !== 'delete') files.record(c.path, c.kind === 'add' ? 'created' : 'edited');
        return [
          {
            type: 'tool_result',
            id,
            name: 'apply_patch',
            isError: !ok,
            output: changes.map((c) => `${c.kind} ${c.path}`).join('\n'),
          },
        ];
      }
      case 'mcp_tool_call': {
        const err = isObj(item.error) ? str(item.error.message) : str(item.error);
        const res = item.result;
        const output =
          err ?? (typeof res === 'string' ? res : res === undefined || res === null ? '' : JSON.stringify(res));
        return [{ type: 'tool_result', id, isError: status === 'failed' || err !== undefined, output: clip(output) }];
      }
      case 'web_search':
        return [{ type: 'tool_result', id, name: 'web_search', isError: false, output: '' }];
      case 'todo_list': {
        const items = Array.isArray(item.items) ? item.items.filter(isObj) : [];
        return [
          {
            type: 'tool_result',
            id,
            name: 'todo_list',
            isError: false,
            output: items.map((t) => `${t.completed === true ? '[x]' : '[ ]'} ${str(t.text) ?? ''}`).join('\n'),
          },
        ];
      }
      default:
        return [];
    }
  };

  const onItem = (phase: string, item: Json): AgentEventInput[] => {
    if (item.type === 'agent_message') {
      const text = str(item.text);
      if (phase !== 'item.completed' || !text || text.trim() === '') return [];
      lastText = text;
      return [
        { type: 'text', text },
        ...extractUpdates(text).map((u): AgentEventInput => ({ type: 'update', text: u })),
      ];
    }
    if (item.type === 'error') {
      return phase === 'item.completed'
        ? [{ type: 'error', message: codexErrorMessage(str(item.message), 'codex reported an error') }]
        : [];
    }
    if (phase === 'item.completed') return [...call(item), ...result(item)];
    return call(item);
  };

  const onDone = (o: Json): AgentEventInput[] => {
    const usage = isObj(o.usage) ? o.usage : {};
    const input = num(usage.input_tokens) ?? 0;
    const cached = num(usage.cached_input_tokens) ?? 0;
    const events: AgentEventInput[] = [
      {
        type: 'usage',
        inputTokens: Math.max(0, input - cached),
        outputTokens: num(usage.output_tokens) ?? 0,
        cacheReadTokens: cached,
      },
      {
        type: 'done',
        status: interrupted ? 'interrupted' : 'done',
        ...(lastText !== undefined ? { finalText: lastText } : {}),
        ...files.snapshot(),
      },
    ];
    interrupted = false;
    lastText = undefined;
    return events;
  };

  return normaliserFrom({
    onLine(o) {
      switch (o.type) {
        case 'thread.started': {
          const id = str(o.thread_id);
          if (!id || id === nativeId) return [];
          nativeId = id;
          return [{ type: 'init', runtime: 'codex', nativeSessionId: id }];
        }
        case 'item.started':
        case 'item.updated':
        case 'item.completed':
          return isObj(o.item) ? onItem(o.type, o.item) : [];
        case 'turn.completed':
          return onDone(o);
        case 'turn.failed': {
          const message = codexErrorMessage(isObj(o.error) ? str(o.error.message) : undefined, 'the turn failed');
          const status = interrupted ? 'interrupted' : 'failed';
          interrupted = false;
          return [{ type: 'done', status, ...files.snapshot(), ...(status === 'failed' ? { error: message } : {}) }];
        }
        case 'error': {
          const retry = codexRetry(str(o.message));
          if (retry) return [retry];
          return [{ type: 'error', message: codexErrorMessage(str(o.message), 'codex reported an error') }];
        }
        default:
          return [];
      }
    },
    onInterrupt() {
      interrupted = true;
    },
    onExit(exit) {
      return exitDone('codex', exit, { interrupted, lastText, files: files.snapshot() });
    },
  });
}

/**
 * codex reports a dropped model stream as an `error` event "Reconnecting... 2/5 (stream
 * disconnected before completion: …)" (string from the 0.169 binary; the shape of the counter
 * and reason is codex's StreamError text) and then retries by itself: a `retry`, not an error.
 */
export function codexRetry(message: string | undefined): AgentEventInput | null {
  const m = /^Reconnecting\.\.\.\s*(\d+)\/(\d+)\s*(?:\((.*)\))?/s.exec(message ?? '');
  if (!m) return null;
  const reason = (m[3] ?? '').trim();
  return {
    type: 'retry',
    attempt: Number(m[1]),
    maxAttempts: Number(m[2]),
    reason: reason || 'stream disconnected',
    kind: retryKind(undefined, reason || 'connection'),
  };
}

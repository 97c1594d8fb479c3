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
import type { AgentEventInput } from '../../core/events.js';
import type { Normaliser } from '../runtime-adapter.js';
import { retryKind } from '../claude/stream.js';
import { isObj, num, str, type Json } from '../json-line.js';
import {
  assistantText,
  dispatch,
  doneEvent,
  endTurn,
  exitDone,
  handlerFor,
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

interface CodexState extends RunState {
  /** Items whose tool_call is out: item.completed repeats the item that item.started announced. */
  started: Set<string>;
  /** Updates seen of each todo_list (its plan changing mid-turn): each is a call of its own. */
  todoUpdates: Map<string, number>;
}

/** How one kind of codex item reads as a tool call and, once completed, as its result. */
interface ItemTool {
  call(item: Json, id: string): AgentEventInput;
  result(s: CodexState, item: Json, id: string, status: string | undefined): AgentEventInput;
}

const todosOf = (item: Json): Json[] => (Array.isArray(item.items) ? item.items.filter(isObj) : []);

const COMMAND: ItemTool = {
  call(item, id) {
    const command = commandOf(item);
    return { type: 'tool_call', id, name: 'shell', summary: oneLine(command), input: { command } };
  },
  result(_s, item, id, status) {
    const code = num(item.exit_code);
    const isError = status === 'failed' || status === 'declined' || (code !== undefined && code !== 0);
    const out = str(item.aggregated_output) ?? '';
    const output =
      status === 'declined' && out === ''
        ? 'declined'
        : code !== undefined && code !== 0
          ? `${out}${out && !out.endsWith('\n') ? '\n' : ''}exit code ${code}`
          : out;
    return { type: 'tool_result', id, name: 'shell', isError, output: clip(output) };
  },
};

const FILE_CHANGE: ItemTool = {
  call(item, id) {
    const changes = changesOf(item);
    const summary = oneLine(changes.map((c) => `${c.kind} ${c.path}`).join(', '));
    return { type: 'tool_call', id, name: 'apply_patch', summary, input: { changes } };
  },
  result(s, item, id, status) {
    const ok = status === 'completed';
    const changes = changesOf(item);
    if (ok)
      for (const c of changes) if (c.kind !== 'delete') s.files.record(c.path, c.kind === 'add' ? 'created' : 'edited');
    const output = changes.map((c) => `${c.kind} ${c.path}`).join('\n');
    return { type: 'tool_result', id, name: 'apply_patch', isError: !ok, output };
  },
};

const MCP_TOOL: ItemTool = {
  call(item, id) {
    const name = `mcp__${str(item.server) ?? 'mcp'}__${str(item.tool) ?? 'tool'}`;
    return { type: 'tool_call', id, name, summary: toolSummary(name, item.arguments), input: item.arguments };
  },
  result(_s, item, id, status) {
    const err = isObj(item.error) ? str(item.error.message) : str(item.error);
    const res = item.result;
    const output =
      err ?? (typeof res === 'string' ? res : res === undefined || res === null ? '' : JSON.stringify(res));
    return { type: 'tool_result', id, isError: status === 'failed' || err !== undefined, output: clip(output) };
  },
};

const WEB_SEARCH: ItemTool = {
  call: (item, id) => ({
    type: 'tool_call',
    id,
    name: 'web_search',
    summary: oneLine(str(item.query) ?? ''),
    input: { query: item.query },
  }),
  result: (_s, _item, id) => ({ type: 'tool_result', id, name: 'web_search', isError: false, output: '' }),
};

const TODO_LIST: ItemTool = {
  call(item, id) {
    const items = todosOf(item);
    const done = items.filter((t) => t.completed === true).length;
    return {
      type: 'tool_call',
      id,
      name: 'todo_list',
      summary: `${items.length} todos, ${done} done`,
      input: { items },
    };
  },
  result(_s, item, id) {
    const output = todosOf(item)
      .map((t) => `${t.completed === true ? '[x]' : '[ ]'} ${str(t.text) ?? ''}`)
      .join('\n');
    return { type: 'tool_result', id, name: 'todo_list', isError: false, output };
  },
};

const ITEM_TOOLS: Readonly<Record<string, ItemTool>> = {
  command_execution: COMMAND,
  file_change: FILE_CHANGE,
  mcp_tool_call: MCP_TOOL,
  web_search: WEB_SEARCH,
  todo_list: TODO_LIST,
};

/** The tool_call of an item, the first time its id shows up. */
function callOf(s: CodexState, item: Json): AgentEventInput[] {
  const id = str(item.id) ?? '';
  if (s.started.has(id)) return [];
  s.started.add(id);
  const tool = handlerFor(ITEM_TOOLS, item.type);
  return tool ? [tool.call(item, id)] : [];
}

function resultOf(s: CodexState, item: Json): AgentEventInput[] {
  const tool = handlerFor(ITEM_TOOLS, item.type);
  return tool ? [tool.result(s, item, str(item.id) ?? '', str(item.status))] : [];
}

/** item.started / item.updated / item.completed. */
function onItem(s: CodexState, o: Line): AgentEventInput[] {
  if (!isObj(o.item)) return [];
  const item = o.item;
  const completed = o.type === 'item.completed';
  if (item.type === 'agent_message') {
    const text = str(item.text);
    if (!completed || !text || text.trim() === '') return [];
    return assistantText(s, text);
  }
  if (item.type === 'error') {
    return completed
      ? [{ type: 'error', message: codexErrorMessage(str(item.message), 'codex reported an error') }]
      : [];
  }
  if (completed) return [...callOf(s, item), ...resultOf(s, item)];
  if (o.type === 'item.updated' && item.type === 'todo_list') return todoUpdate(s, item);
  return callOf(s, item);
}

/**
 * codex updates its plan in place (item.updated of the same todo_list): each update is shown, and
 * counted for the agent's progress, as a call and result of its own (id `<item>~<n>`), as claude's
 * TodoWrite calls are.
 */
function todoUpdate(s: CodexState, item: Json): AgentEventInput[] {
  const id = str(item.id) ?? '';
  if (!s.started.has(id)) return callOf(s, item);
  const n = (s.todoUpdates.get(id) ?? 0) + 1;
  s.todoUpdates.set(id, n);
  return [TODO_LIST.call(item, `${id}~${n}`), TODO_LIST.result(s, item, `${id}~${n}`, 'completed')];
}

function onTurnCompleted(s: CodexState, o: Line): AgentEventInput[] {
  const usage = isObj(o.usage) ? o.usage : {};
  const input = num(usage.input_tokens) ?? 0;
  const cached = num(usage.cached_input_tokens) ?? 0;
  return [
    usageEvent({
      inputTokens: Math.max(0, input - cached),
      outputTokens: num(usage.output_tokens) ?? 0,
      cacheReadTokens: cached,
    }),
    endTurn(s, { status: turnStatus(s, false), finalText: s.lastText }),
  ];
}

function onTurnFailed(s: CodexState, o: Line): AgentEventInput[] {
  const message = codexErrorMessage(isObj(o.error) ? str(o.error.message) : undefined, 'the turn failed');
  const status = turnStatus(s, true);
  s.interrupted = false;
  return [doneEvent(s, { status, error: message })];
}

const CODEX_LINES: Readonly<Record<string, LineHandler<CodexState>>> = {
  'thread.started': (s, o) => {
    const id = str(o.thread_id);
    return isNewSession(s, id) ? [{ type: 'init', runtime: 'codex', nativeSessionId: id }] : [];
  },
  'item.started': onItem,
  'item.updated': onItem,
  'item.completed': onItem,
  'turn.completed': onTurnCompleted,
  'turn.failed': onTurnFailed,
  error: (_s, o) => {
    const retry = codexRetry(str(o.message));
    if (retry) return [retry];
    return [{ type: 'error', message: codexErrorMessage(str(o.message), 'codex reported an error') }];
  },
};

export function createCodexNormaliser(): Normaliser {
  return new JsonLineNormaliser<CodexState>(
    { ...newRunState(), started: new Set(), todoUpdates: new Map() },
    { onLine: dispatch(CODEX_LINES), onExit: (s, exit) => exitDone('codex', exit, s) },
  );
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

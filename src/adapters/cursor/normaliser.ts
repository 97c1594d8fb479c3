/**
 * Cursor CLI `cursor-agent -p --output-format stream-json` lines → AgentEvents.
 *
 * NOT VERIFIED against a real cursor-agent: it is closed source and not installable here. The
 * shapes come from the documentation collected in docs/cli-facts.md §4.3 (cursor.com output-format
 * reference and two open-source parsers), and the unit test runs on lines built from them.
 *
 *   system/init {session_id, model, cwd}      → init
 *   assistant {message.content[text]}         → text (one line per complete assistant message)
 *   tool_call started {call_id, tool_call:{<name>ToolCall:{args}}}   → tool_call
 *   tool_call completed {…:{args, result:{success|failure|error|rejected}}} → tool_result;
 *                                               write/edit/delete successes feed the files lists
 *   result {subtype, is_error, result, duration_ms} → done (cursor reports no tokens or cost)
 * On failure cursor exits non-zero and may print no result: `end` reports it failed.
 */
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
  type Line,
  type LineHandler,
  type RunState,
} from '../normaliser-kit.js';
import { clip, oneLine, toolSummary } from '../../core/tool-summary.js';

const KEY_ARG: Record<string, readonly string[]> = {
  shell: ['command'],
  read: ['path'],
  write: ['path'],
  edit: ['path'],
  delete: ['path'],
  grep: ['pattern'],
  glob: ['globPattern', 'pattern'],
  ls: ['path'],
};

/** `{shellToolCall:{args,result}}` → {name: 'shell', args, result}; `{function:{name,arguments}}` → that name. */
export function cursorTool(toolCall: unknown): { name: string; args: unknown; result: unknown } | null {
  if (!isObj(toolCall)) return null;
  const [key, body] = Object.entries(toolCall).find(([, v]) => isObj(v)) ?? [];
  if (!key || !isObj(body)) return null;
  if (key === 'function') {
    let args: unknown = body.arguments;
    if (typeof args === 'string') {
      try {
        args = JSON.parse(args);
      } catch {
        /* keep the string */
      }
    }
    return { name: str(body.name) ?? 'function', args, result: body.result };
  }
  return { name: key.replace(/ToolCall$/, ''), args: body.args, result: body.result };
}

function summaryOf(name: string, args: unknown): string {
  if (isObj(args)) {
    for (const k of KEY_ARG[name] ?? []) {
      const v = args[k];
      if (typeof v === 'string' && v !== '') return oneLine(v);
    }
    if (name === 'todo' && Array.isArray(args.todos)) return `${args.todos.length} todos`;
  }
  return toolSummary(name, args);
}

/** A tool result (`{success:{…}}` or `{failure|error|rejected:{…}}`) → output text and error flag. */
function resultOf(name: string, result: unknown): { isError: boolean; output: string } {
  if (!isObj(result)) return { isError: false, output: typeof result === 'string' ? result : '' };
  const ok = isObj(result.success) ? result.success : null;
  if (ok) {
    if (name === 'shell') {
      const code = num(ok.exitCode);
      const out = [str(ok.stdout), str(ok.stderr)].filter((s) => s).join('');
      return {
        isError: code !== undefined && code !== 0,
        output: code ? `${out}${out ? '\n' : ''}exit code ${code}` : out,
      };
    }
    const text = str(ok.content) ?? str(ok.output) ?? str(ok.message);
    if (text !== undefined) return { isError: false, output: text };
    if (name === 'write' && num(ok.linesCreated) !== undefined)
      return { isError: false, output: `${ok.linesCreated} lines written to ${str(ok.path) ?? ''}`.trim() };
    return { isError: false, output: '' };
  }
  for (const k of ['failure', 'error', 'rejected']) {
    const v = result[k];
    if (v === undefined) continue;
    const out = isObj(v)
      ? (str(v.message) ?? str(v.errorMessage) ?? str(v.error) ?? str(v.stderr) ?? JSON.stringify(v))
      : String(v);
    return { isError: true, output: k === 'rejected' && !out ? 'rejected' : out };
  }
  return { isError: false, output: JSON.stringify(result) };
}

interface CursorState extends RunState {
  /** Tool calls whose tool_call is out, by call id, until their result. */
  names: Map<string, string>;
}

function onSystem(s: CursorState, o: Line): AgentEventInput[] {
  const id = str(o.session_id);
  if (o.subtype !== 'init' || !isNewSession(s, id)) return [];
  const model = str(o.model);
  const cwd = str(o.cwd);
  return [
    { type: 'init', runtime: 'cursor', nativeSessionId: id, ...(model ? { model } : {}), ...(cwd ? { cwd } : {}) },
  ];
}

function onAssistant(s: CursorState, o: Line): AgentEventInput[] {
  const msg = isObj(o.message) ? o.message : {};
  const content = msg.content;
  const text =
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content
            .filter(isObj)
            .map((b) => (b.type === 'text' ? (str(b.text) ?? '') : ''))
            .join('')
        : '';
  if (text.trim() === '') return [];
  return assistantText(s, text);
}

function onToolCall(s: CursorState, o: Line): AgentEventInput[] {
  const id = str(o.call_id) ?? '';
  const tool = cursorTool(o.tool_call);
  if (!tool) return [];
  const out: AgentEventInput[] = [];
  if (o.subtype === 'started' || !s.names.has(id)) {
    s.names.set(id, tool.name);
    out.push({ type: 'tool_call', id, name: tool.name, summary: summaryOf(tool.name, tool.args), input: tool.args });
    if (o.subtype === 'started') return out;
  }
  s.names.delete(id);
  const { isError, output } = resultOf(tool.name, tool.result);
  const ok = isObj(tool.result) && isObj(tool.result.success) ? tool.result.success : {};
  const p = str(ok.path) ?? (isObj(tool.args) ? str(tool.args.path) : undefined);
  if (!isError && p && (tool.name === 'write' || tool.name === 'edit'))
    s.files.record(p, tool.name === 'write' ? 'created' : 'edited');
  out.push({ type: 'tool_result', id, name: tool.name, isError, output: clip(output) });
  return out;
}

function onResult(s: CursorState, o: Line): AgentEventInput[] {
  const failed = o.is_error === true || (str(o.subtype) !== undefined && o.subtype !== 'success');
  // `result` joins every assistant message of the run; the final answer is the last one.
  const text = str(o.result);
  const finalText = s.lastText ?? (text && text.trim() !== '' ? text : undefined);
  return [
    endTurn(s, {
      status: turnStatus(s, failed),
      finalText,
      durationMs: num(o.duration_ms),
      error: text || str(o.subtype) || 'cursor-agent reported an error',
    }),
  ];
}

const CURSOR_LINES: Readonly<Record<string, LineHandler<CursorState>>> = {
  system: onSystem,
  assistant: onAssistant,
  tool_call: onToolCall,
  result: onResult,
};

export function createCursorNormaliser(): Normaliser {
  return new JsonLineNormaliser<CursorState>(
    { ...newRunState(), names: new Map() },
    { onLine: dispatch(CURSOR_LINES), onExit: (s, exit) => exitDone('cursor-agent', exit, s) },
  );
}

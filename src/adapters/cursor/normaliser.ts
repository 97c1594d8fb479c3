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
import { extractUpdates, type AgentEventInput } from '../../core/events.js';
import type { Normaliser } from '../runtime-adapter.js';
import { exitDone, isObj, normaliserFrom, num, str, type Json } from '../json-line.js';
import { clip, FileTracker, oneLine, toolSummary } from '../../core/tool-summary.js';

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

export function createCursorNormaliser(): Normaliser {
  let nativeId: string | null = null;
  const names = new Map<string, string>();
  const files = new FileTracker();
  let lastText: string | undefined;
  let interrupted = false;

  const onToolCall = (o: Json): AgentEventInput[] => {
    const id = str(o.call_id) ?? '';
    const tool = cursorTool(o.tool_call);
    if (!tool) return [];
    const out: AgentEventInput[] = [];
    if (o.subtype === 'started' || !names.has(id)) {
      names.set(id, tool.name);
      out.push({ type: 'tool_call', id, name: tool.name, summary: summaryOf(tool.name, tool.args), input: tool.args });
      if (o.subtype === 'started') return out;
    }
    names.delete(id);
    const { isError, output } = resultOf(tool.name, tool.result);
    const ok = isObj(tool.result) && isObj(tool.result.success) ? tool.result.success : {};
    const p = str(ok.path) ?? (isObj(tool.args) ? str(tool.args.path) : undefined);
    if (!isError && p && (tool.name === 'write' || tool.name === 'edit'))
      files.record(p, tool.name === 'write' ? 'created' : 'edited');
    out.push({ type: 'tool_result', id, name: tool.name, isError, output: clip(output) });
    return out;
  };

  const onResult = (o: Json): AgentEventInput[] => {
    const failed = o.is_error === true || (str(o.subtype) !== undefined && o.subtype !== 'success');
    const status = interrupted ? 'interrupted' : failed ? 'failed' : 'done';
    // `result` joins every assistant message of the run; the final answer is the last one.
    const text = str(o.result);
    const finalText = lastText ?? (text && text.trim() !== '' ? text : undefined);
    const event: AgentEventInput = {
      type: 'done',
      status,
      ...(finalText !== undefined && status !== 'failed' ? { finalText } : {}),
      ...(num(o.duration_ms) !== undefined ? { durationMs: num(o.duration_ms) } : {}),
      ...files.snapshot(),
      ...(status === 'failed' ? { error: text || str(o.subtype) || 'cursor-agent reported an error' } : {}),
    };
    interrupted = false;
    lastText = undefined;
    return [event];
  };

  return normaliserFrom({
    onLine(o) {
      switch (o.type) {
        case 'system': {
          const id = str(o.session_id);
          if (o.subtype !== 'init' || !id || id === nativeId) return [];
          nativeId = id;
          const model = str(o.model);
          const cwd = str(o.cwd);
          return [
            {
              type: 'init',
              runtime: 'cursor',
              nativeSessionId: id,
              ...(model ? { model } : {}),
              ...(cwd ? { cwd } : {}),
            },
          ];
        }
        case 'assistant': {
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
          lastText = text;
          return [
            { type: 'text', text },
            ...extractUpdates(text).map((u): AgentEventInput => ({ type: 'update', text: u })),
          ];
        }
        case 'tool_call':
          return onToolCall(o);
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
      return exitDone('cursor-agent', exit, { interrupted, lastText, files: files.snapshot() });
    },
  });
}

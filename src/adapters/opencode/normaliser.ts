/**
 * opencode `run --format json` lines → AgentEvents (docs/cli-facts.md §4.4; seen with opencode
 * 1.18.33). Every line is `{type, timestamp, sessionID, part}`.
 *
 *   first line's sessionID               → init (the native `ses_…` id)
 *   text (part.text, sent complete)      → text (+ `update` per `[UPDATE] …` line)
 *   tool_use (only once completed/error) → tool_call + tool_result together; successful write/edit/
 *                                          patch tools feed the files lists
 *   step_finish {tokens, cost}           → usage (per step; opencode reports cost)
 *   error {error}                        → error; the run then ends failed
 *   a refused permission (tool error "rejected permission", then exit 0 with no answer) → failed
 *   done (newer opencode)                → done
 * opencode 1.18.33 has no final event: the run is complete when the process exits (code 0 → done
 * with the last text; anything else → failed), which `end` reports.
 */
import { extractUpdates, type AgentEventInput } from '../../core/events.js';
import type { Normaliser } from '../runtime-adapter.js';
import { exitDone, isObj, normaliserFrom, num, str, type Json } from '../json-line.js';
import { clip, FileTracker, oneLine, toolSummary } from '../../core/tool-summary.js';

const KEY_ARG: Record<string, readonly string[]> = {
  bash: ['command'],
  read: ['filePath'],
  write: ['filePath'],
  edit: ['filePath'],
  multiedit: ['filePath'],
  patch: ['patchText'],
  apply_patch: ['patchText'],
  glob: ['pattern'],
  grep: ['pattern'],
  list: ['path'],
  webfetch: ['url'],
  websearch: ['query'],
  task: ['description', 'prompt'],
  todowrite: [],
};

export function opencodeToolSummary(name: string, input: unknown): string {
  if (isObj(input)) {
    for (const k of KEY_ARG[name] ?? []) {
      const v = input[k];
      if (typeof v === 'string' && v !== '') return oneLine(v);
    }
    if (name === 'todowrite' && Array.isArray(input.todos)) return `${input.todos.length} todos`;
  }
  return toolSummary(name, input);
}

/** Error text from opencode's `error` event (`{name, data:{message}}` or a string). */
function errorText(e: unknown): string {
  if (typeof e === 'string') return e;
  if (isObj(e)) {
    const data = isObj(e.data) ? e.data : {};
    return str(data.message) ?? str(e.message) ?? str(e.name) ?? JSON.stringify(e);
  }
  return 'opencode reported an error';
}

export function createOpencodeNormaliser(): Normaliser {
  let nativeId: string | null = null;
  const files = new FileTracker();
  let lastText: string | undefined;
  let interrupted = false;
  let failure: string | undefined;
  /** A refused permission ends opencode's run (exit 0, no answer): the run did not do its work. */
  let refused: string | undefined;
  let cost = 0;

  const onTool = (part: Json): AgentEventInput[] => {
    const state = isObj(part.state) ? part.state : {};
    const status = str(state.status);
    if (status !== 'completed' && status !== 'error') return [];
    const id = str(part.callID) ?? str(part.id) ?? '';
    const name = str(part.tool) ?? 'tool';
    const input = state.input;
    const isError = status === 'error';
    const output = isError ? (str(state.error) ?? 'error') : (str(state.output) ?? '');
    refused =
      isError && /rejected permission/i.test(output) ? `${name} ${opencodeToolSummary(name, input)}`.trim() : undefined;
    if (!isError && isObj(input)) {
      const p = str(input.filePath);
      const meta = isObj(state.metadata) ? state.metadata : {};
      if (p && name === 'write') files.record(p, meta.exists === true ? 'edited' : 'created');
      else if (p && (name === 'edit' || name === 'multiedit')) files.record(p, 'edited');
    }
    return [
      { type: 'tool_call', id, name, summary: opencodeToolSummary(name, input), input },
      { type: 'tool_result', id, name, isError, output: clip(output) },
    ];
  };

  const onStepFinish = (part: Json): AgentEventInput[] => {
    const tokens = isObj(part.tokens) ? part.tokens : {};
    const cache = isObj(tokens.cache) ? tokens.cache : {};
    const c = num(part.cost);
    if (c !== undefined) cost += c;
    return [
      {
        type: 'usage',
        inputTokens: (num(tokens.input) ?? 0) + (num(cache.write) ?? 0),
        outputTokens: (num(tokens.output) ?? 0) + (num(tokens.reasoning) ?? 0),
        cacheReadTokens: num(cache.read) ?? 0,
        ...(c !== undefined ? { costUsd: c } : {}),
      },
    ];
  };

  const done = (): AgentEventInput => {
    const status = interrupted ? 'interrupted' : failure ? 'failed' : 'done';
    const event: AgentEventInput = {
      type: 'done',
      status,
      ...(lastText !== undefined && status !== 'failed' ? { finalText: lastText } : {}),
      ...(cost ? { costUsd: cost } : {}),
      ...files.snapshot(),
      ...(status === 'failed' ? { error: failure } : {}),
    };
    interrupted = false;
    failure = undefined;
    refused = undefined;
    lastText = undefined;
    return event;
  };

  return normaliserFrom({
    onLine(o) {
      const out: AgentEventInput[] = [];
      const sid = str(o.sessionID);
      if (sid && sid !== nativeId) {
        nativeId = sid;
        out.push({ type: 'init', runtime: 'opencode', nativeSessionId: sid });
      }
      const part = isObj(o.part) ? o.part : {};
      switch (o.type) {
        case 'text': {
          const text = str(part.text);
          if (text && text.trim() !== '' && !part.synthetic) {
            lastText = text;
            refused = undefined;
            out.push(
              { type: 'text', text },
              ...extractUpdates(text).map((u): AgentEventInput => ({ type: 'update', text: u })),
            );
          }
          break;
        }
        case 'tool_use':
          out.push(...onTool(part));
          break;
        case 'step_finish':
          out.push(...onStepFinish(part));
          break;
        case 'error':
          failure = errorText(o.error);
          out.push({ type: 'error', message: failure });
          break;
        case 'done':
          out.push(done());
          break;
        default:
          break;
      }
      return out;
    },
    onInterrupt() {
      interrupted = true;
    },
    onExit(exit) {
      if (!failure && refused && !interrupted && exit.code === 0) {
        failure = `opencode stopped: permission for ${refused} was refused (opencode run refuses what it would ask; see agents.permissionMode)`;
      }
      if (failure && !interrupted) return [done()];
      // 1.18.33: no final event; a clean exit is the end of the turn.
      return exitDone(
        'opencode',
        exit,
        { interrupted, lastText, files: files.snapshot(), ...(cost ? { costUsd: cost } : {}) },
        true,
      );
    },
  });
}

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
import type { AgentEventInput } from '../../core/events.js';
import type { Normaliser } from '../runtime-adapter.js';
import { isObj, num, str, type Json } from '../json-line.js';
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
  type CliExit,
  type Line,
  type LineHandler,
  type RunState,
} from '../normaliser-kit.js';
import { clip, oneLine, toolSummary } from '../../core/tool-summary.js';

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

interface OpencodeState extends RunState {
  /** The error the run reported: the turn ends failed with it. */
  failure: string | undefined;
  /** A refused permission ends opencode's run (exit 0, no answer): the run did not do its work. */
  refused: string | undefined;
  /** opencode reports the cost per step: the run's total so far. */
  cost: number;
}

const partOf = (o: Line): Json => (isObj(o.part) ? o.part : {});

/** Every line carries the session id: the first one (and a new one) is the init. */
function sessionInit(s: OpencodeState, o: Line): AgentEventInput[] {
  const sid = str(o.sessionID);
  return isNewSession(s, sid) ? [{ type: 'init', runtime: 'opencode', nativeSessionId: sid }] : [];
}

function onText(s: OpencodeState, o: Line): AgentEventInput[] {
  const part = partOf(o);
  const text = str(part.text);
  if (!text || text.trim() === '' || part.synthetic) return [];
  s.refused = undefined;
  return assistantText(s, text);
}

function onTool(s: OpencodeState, o: Line): AgentEventInput[] {
  const part = partOf(o);
  const state = isObj(part.state) ? part.state : {};
  const status = str(state.status);
  if (status !== 'completed' && status !== 'error') return [];
  const id = str(part.callID) ?? str(part.id) ?? '';
  const name = str(part.tool) ?? 'tool';
  const input = state.input;
  const isError = status === 'error';
  const output = isError ? (str(state.error) ?? 'error') : (str(state.output) ?? '');
  s.refused =
    isError && /rejected permission/i.test(output) ? `${name} ${opencodeToolSummary(name, input)}`.trim() : undefined;
  if (!isError && isObj(input)) {
    const p = str(input.filePath);
    const meta = isObj(state.metadata) ? state.metadata : {};
    if (p && name === 'write') s.files.record(p, meta.exists === true ? 'edited' : 'created');
    else if (p && (name === 'edit' || name === 'multiedit')) s.files.record(p, 'edited');
  }
  return [
    { type: 'tool_call', id, name, summary: opencodeToolSummary(name, input), input },
    { type: 'tool_result', id, name, isError, output: clip(output) },
  ];
}

function onStepFinish(s: OpencodeState, o: Line): AgentEventInput[] {
  const part = partOf(o);
  const tokens = isObj(part.tokens) ? part.tokens : {};
  const cache = isObj(tokens.cache) ? tokens.cache : {};
  const c = num(part.cost);
  if (c !== undefined) s.cost += c;
  return [
    usageEvent({
      inputTokens: (num(tokens.input) ?? 0) + (num(cache.write) ?? 0),
      outputTokens: (num(tokens.output) ?? 0) + (num(tokens.reasoning) ?? 0),
      cacheReadTokens: num(cache.read) ?? 0,
      costUsd: c,
    }),
  ];
}

function done(s: OpencodeState): AgentEventInput {
  const event = endTurn(s, {
    status: turnStatus(s, Boolean(s.failure)),
    finalText: s.lastText,
    costUsd: s.cost,
    error: s.failure,
  });
  s.failure = undefined;
  s.refused = undefined;
  return event;
}

const OPENCODE_LINES: Readonly<Record<string, LineHandler<OpencodeState>>> = {
  text: onText,
  tool_use: onTool,
  step_finish: onStepFinish,
  error: (s, o) => {
    s.failure = errorText(o.error);
    return [{ type: 'error', message: s.failure }];
  },
  done: (s) => [done(s)],
};

const onLine = dispatch(OPENCODE_LINES);

function onExit(s: OpencodeState, exit: CliExit): AgentEventInput[] {
  if (!s.failure && s.refused && !s.interrupted && exit.code === 0) {
    s.failure = `opencode stopped: permission for ${s.refused} was refused (opencode run refuses what it would ask; see agents.permissionMode)`;
  }
  if (s.failure && !s.interrupted) return [done(s)];
  // 1.18.33: no final event; a clean exit is the end of the turn.
  return exitDone('opencode', exit, s, { costUsd: s.cost, zeroIsDone: true });
}

export function createOpencodeNormaliser(): Normaliser {
  return new JsonLineNormaliser<OpencodeState>(
    { ...newRunState(), failure: undefined, refused: undefined, cost: 0 },
    { onLine: (s, o) => [...sessionInit(s, o), ...onLine(s, o)], onExit },
  );
}

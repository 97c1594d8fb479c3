/**
 * Claude Code `-p --output-format stream-json --verbose` lines → AgentEvents (docs/cli-facts.md §2.2).
 *
 *   system/init              → init (once per native session id; claude repeats it every turn)
 *   assistant text block     → text, plus one `update` per `[UPDATE] …` line
 *   assistant tool_use       → tool_call with the key argument as summary
 *   user tool_result         → tool_result (output clipped); Write/Edit/MultiEdit successes feed the
 *                              files edited/created lists
 *   user "[Request interrupted by user]" → the current turn ends interrupted
 *   result                   → usage (this turn's tokens and cost) + done (status, final text,
 *                              the process's cumulative cost, files)
 *   control_response         → hooks.onControlResponse (interrupt acknowledgement)
 *   stream_event content_block_delta text_delta / thinking_delta (`--include-partial-messages`)
 *                            → text_delta / thinking_delta, one per delta (the runtime coalesces them);
 *                              the `assistant` line that follows still gives the whole `text`
 *   system/api_retry         → retry (attempt, max, delay, why: unreachable / rate limit / overloaded)
 *   control_request can_use_tool → approval_request (`--permission-prompt-tool stdio`, §2.4): the
 *                              runtime holds it until someone answers
 *   control_cancel_request   → hooks.onControlCancel (the CLI gave up on a request it sent)
 *   each response's usage    → hooks.onTurnSpend (the turn's cost so far, estimated: spend.ts)
 * Lines of sub-agents (parent_tool_use_id set), other stream_events, hook and status lines, and anything
 * unknown or malformed give nothing.
 */
import type { AgentEventInput, TerminalStatus } from '../../core/events.js';
import { retryFromClaude, streamDelta } from './stream.js';
import { TurnSpend } from './spend.js';
import type { Normaliser, NormaliserHooks } from '../runtime-adapter.js';
import { isObj, num, str, type Json } from '../json-line.js';
import {
  assistantText,
  handlerFor,
  isNewSession,
  newRunState,
  usageEvent,
  type CliExit,
  type RunState,
} from '../normaliser-kit.js';
import { clip, fileChange, toolSummary } from '../../core/tool-summary.js';

/** The text claude writes as the user's message when a turn is interrupted. */
export const INTERRUPTED_MARK = '[Request interrupted by user';

/** Flatten tool_result / message content (string or blocks) to text. */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((b) =>
      isObj(b) && b.type === 'text' && typeof b.text === 'string'
        ? b.text
        : isObj(b) && b.type === 'image'
          ? '[image]'
          : '',
    )
    .filter((s) => s !== '')
    .join('\n');
}

/** `Bash(npm test)` for each rule claude suggests adding (permission_suggestions of type addRules). */
export function suggestedRule(suggestions: unknown): string | undefined {
  if (!Array.isArray(suggestions)) return undefined;
  const rules: string[] = [];
  for (const s of suggestions) {
    if (!isObj(s) || s.type !== 'addRules' || s.behavior !== 'allow' || !Array.isArray(s.rules)) continue;
    for (const r of s.rules) {
      if (!isObj(r) || typeof r.toolName !== 'string') continue;
      rules.push(
        typeof r.ruleContent === 'string' && r.ruleContent !== '' ? `${r.toolName}(${r.ruleContent})` : r.toolName,
      );
    }
  }
  return rules.length ? rules.join(', ') : undefined;
}

/** What the normaliser knows across one claude process's lines. */
interface ClaudeState extends RunState {
  hooks: NormaliserHooks;
  /** Tool names by tool_use id: a tool_result carries only the id. */
  toolNames: Map<string, string>;
  /** Write/Edit calls waiting for their result: the file counts once the call succeeded. */
  pendingFiles: Map<string, { path: string; kind: 'write' | 'edit' }>;
  /** Whether the newest turn line was a `result`: the run ended cleanly, no closing done at exit. */
  lastWasResult: boolean;
  /** claude reports the process's cumulative cost: the total at the previous result. */
  lastTotalCost: number;
  /** Tool calls someone was asked about (can_use_tool): a refusal of one of them was that answer. */
  asked: Set<string>;
  /** The running turn's cost as it grows (hooks.onTurnSpend). */
  spend: TurnSpend;
}

type ClaudeHandler = (s: ClaudeState, o: Json) => AgentEventInput[];

function onControlRequest(s: ClaudeState, o: Json): AgentEventInput[] {
  const id = str(o.request_id);
  const req = o.request;
  if (!id || !isObj(req) || req.subtype !== 'can_use_tool' || typeof req.tool_name !== 'string') return [];
  s.asked.add(askedKey(req.tool_name, str(req.tool_use_id), req.input));
  s.asked.add(askedKey(req.tool_name, undefined, req.input));
  const rule = suggestedRule(req.permission_suggestions);
  const reason = str(req.decision_reason);
  return [
    {
      type: 'approval_request',
      requestId: id,
      tool: req.tool_name,
      summary: toolSummary(req.tool_name, req.input),
      input: req.input,
      ...(reason ? { reason } : {}),
      ...(rule ? { rule } : {}),
      ...(req.permission_suggestions !== undefined ? { suggestions: req.permission_suggestions } : {}),
    },
  ];
}

function onSystem(s: ClaudeState, o: Json): AgentEventInput[] {
  if (o.subtype === 'api_retry') return retryFromClaude(o);
  if (o.subtype !== 'init') return [];
  const id = str(o.session_id);
  if (!isNewSession(s, id)) return [];
  const model = str(o.model);
  const cwd = str(o.cwd);
  return [
    { type: 'init', runtime: 'claude', nativeSessionId: id, ...(model ? { model } : {}), ...(cwd ? { cwd } : {}) },
  ];
}

function onAssistant(s: ClaudeState, o: Json): AgentEventInput[] {
  const msg = o.message;
  if (!isObj(msg) || !Array.isArray(msg.content)) return [];
  const out: AgentEventInput[] = [];
  for (const b of msg.content) {
    if (!isObj(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string' && b.text.trim() !== '') {
      out.push(...assistantText(s, b.text));
    } else if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') {
      s.toolNames.set(b.id, b.name);
      const change = fileChange(b.name, b.input);
      if (change) s.pendingFiles.set(b.id, change);
      out.push({ type: 'tool_call', id: b.id, name: b.name, summary: toolSummary(b.name, b.input), input: b.input });
    }
  }
  return out;
}

function toolResult(s: ClaudeState, b: Json & { tool_use_id: string }, meta: Json | undefined): AgentEventInput {
  const id = b.tool_use_id;
  const isError = b.is_error === true;
  const name = s.toolNames.get(id);
  const change = s.pendingFiles.get(id);
  s.pendingFiles.delete(id);
  if (change && !isError) {
    const created = change.kind === 'write' && (meta?.type === 'create' || meta?.type === undefined);
    s.files.record(change.path, created ? 'created' : 'edited');
  }
  return { type: 'tool_result', id, ...(name ? { name } : {}), isError, output: clip(contentText(b.content)) };
}

function onUser(s: ClaudeState, o: Json): AgentEventInput[] {
  const msg = o.message;
  if (!isObj(msg)) return [];
  const content = msg.content;
  if (typeof content === 'string') {
    if (content.startsWith(INTERRUPTED_MARK)) s.interrupted = true;
    return [];
  }
  if (!Array.isArray(content)) return [];
  const out: AgentEventInput[] = [];
  const meta = isObj(o.tool_use_result) ? o.tool_use_result : undefined;
  for (const b of content) {
    if (!isObj(b)) continue;
    if (b.type === 'text' && typeof b.text === 'string' && b.text.startsWith(INTERRUPTED_MARK)) s.interrupted = true;
    if (b.type !== 'tool_result' || typeof b.tool_use_id !== 'string') continue;
    out.push(toolResult(s, b as Json & { tool_use_id: string }, meta));
  }
  return out;
}

/** This turn's tokens and cost (claude reports the process's cumulative cost). */
function resultUsage(s: ClaudeState, o: Json, total: number | undefined): AgentEventInput {
  const usage = isObj(o.usage) ? o.usage : {};
  const turnCost = total !== undefined ? Math.max(0, total - s.lastTotalCost) : undefined;
  if (total !== undefined) s.lastTotalCost = total;
  const input = (num(usage.input_tokens) ?? 0) + (num(usage.cache_creation_input_tokens) ?? 0);
  return usageEvent({
    inputTokens: input,
    outputTokens: num(usage.output_tokens) ?? 0,
    cacheReadTokens: num(usage.cache_read_input_tokens) ?? 0,
    costUsd: turnCost,
  });
}

function resultDone(s: ClaudeState, o: Json, total: number | undefined): AgentEventInput {
  const subtype = str(o.subtype);
  const isError = o.is_error === true || (subtype !== undefined && subtype !== 'success');
  const aborted = /^aborted/.test(str(o.terminal_reason) ?? '');
  const status: TerminalStatus = s.interrupted || (isError && aborted) ? 'interrupted' : isError ? 'failed' : 'done';
  const resultText = str(o.result);
  const errors = Array.isArray(o.errors) ? o.errors.filter((e): e is string => typeof e === 'string') : [];
  const finalText = resultText && resultText !== '' ? resultText : s.lastText;
  const error =
    status === 'failed' ? (errors.length ? errors.join('; ') : resultText || subtype || 'the turn failed') : undefined;
  return {
    type: 'done',
    status,
    ...(finalText !== undefined && status !== 'failed' ? { finalText } : {}),
    ...(total !== undefined ? { costUsd: total } : {}),
    ...(num(o.duration_ms) !== undefined ? { durationMs: num(o.duration_ms) } : {}),
    // claude counts the interruption itself as a turn (one interrupted turn reports 2).
    ...(num(o.num_turns) !== undefined
      ? { numTurns: status === 'interrupted' ? Math.max(1, num(o.num_turns)! - 1) : num(o.num_turns) }
      : {}),
    ...s.files.snapshot(),
    ...(error ? { error } : {}),
  };
}

function onResult(s: ClaudeState, o: Json): AgentEventInput[] {
  const total = num(o.total_cost_usd);
  const events = [resultUsage(s, o, total), resultDone(s, o, total)];
  const refused = permissionDenials(o.permission_denials, s.asked);
  if (refused) events.push({ type: 'error', message: refused });
  s.interrupted = false;
  s.lastText = undefined;
  s.asked.clear();
  return events;
}

/** Lines about the control channel and partial messages: they leave the turn as it is. */
const SIDE_LINES: Readonly<Record<string, ClaudeHandler>> = {
  control_response: (s, o) => {
    if (!isObj(o.response)) return [];
    const id = str(o.response.request_id);
    if (id) s.hooks.onControlResponse?.(id, o.response.subtype === 'success');
    return [];
  },
  control_request: onControlRequest,
  control_cancel_request: (s, o) => {
    const id = str(o.request_id);
    if (id) s.hooks.onControlCancel?.(id);
    return [];
  },
  stream_event: (_s, o) => streamDelta(o),
};

/** Lines of the turn itself: after each, whether the run ended cleanly is known anew. */
const TURN_LINES: Readonly<Record<string, ClaudeHandler>> = {
  system: onSystem,
  assistant: onAssistant,
  user: onUser,
  result: onResult,
};

const SUB_AGENT_TYPES = new Set(['assistant', 'user', 'stream_event']);

function onLine(s: ClaudeState, o: Json & { type: string }): AgentEventInput[] {
  s.spend.line(o); // sub-agents' responses cost too
  // Lines from inside a Task/Agent tool call belong to a sub-agent, not to this turn.
  if (SUB_AGENT_TYPES.has(o.type) && o.parent_tool_use_id != null) return [];
  const side = handlerFor(SIDE_LINES, o.type);
  if (side) return side(s, o);
  const turn = handlerFor(TURN_LINES, o.type);
  if (!turn) return [];
  const out = turn(s, o);
  s.lastWasResult = o.type === 'result' ? true : o.type === 'system' ? s.lastWasResult : false;
  return out;
}

/** The closing `done` when claude exited without a `result` for the turn. */
function claudeExitDone(s: ClaudeState, exit: CliExit): AgentEventInput[] {
  if (s.lastWasResult) return [];
  s.lastWasResult = true;
  const tail = exit.stderr.trim().split('\n').slice(-3).join(' | ');
  const how = exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
  const status: TerminalStatus = s.interrupted ? 'interrupted' : 'failed';
  return [
    {
      type: 'done',
      status,
      ...(s.lastText && status === 'interrupted' ? { finalText: s.lastText } : {}),
      ...(s.lastTotalCost ? { costUsd: s.lastTotalCost } : {}),
      ...s.files.snapshot(),
      ...(status === 'failed'
        ? { error: `claude exited with ${how}${tail ? `: ${tail}` : ' before finishing the turn'}` }
        : {}),
    },
  ];
}

export function createClaudeNormaliser(hooks: NormaliserHooks = {}): Normaliser {
  const s: ClaudeState = {
    ...newRunState(),
    hooks,
    toolNames: new Map(),
    pendingFiles: new Map(),
    lastWasResult: false,
    lastTotalCost: 0,
    asked: new Set(),
    spend: new TurnSpend((usd) => hooks.onTurnSpend?.(usd)),
  };
  return {
    line(raw) {
      let o: unknown;
      try {
        o = JSON.parse(raw);
      } catch {
        return [];
      }
      if (!isObj(o) || typeof o.type !== 'string') return [];
      try {
        return onLine(s, o as Json & { type: string });
      } catch {
        return [];
      }
    },
    noteInterrupt() {
      s.interrupted = true;
    },
    end: (exit) => claudeExitDone(s, exit),
  };
}

/** One tool call: its id when claude gives one, else what it is (a denial names both). */
function askedKey(tool: string, toolUseId: string | undefined, input: unknown): string {
  return toolUseId ? `id:${toolUseId}` : `call:${tool}:${JSON.stringify(input ?? {})}`;
}

/**
 * `result.permission_denials` ([{tool_name, tool_use_id, tool_input}], docs/cli-facts.md): a call
 * refused by a rule, or in a mode that can't ask, ends the turn quietly. Say what was refused and
 * where to allow it. A call someone was asked about and refused (`asked`) was a person's answer, not
 * a missing rule: it is not reported.
 */
export function permissionDenials(v: unknown, asked: ReadonlySet<string> = new Set()): string | null {
  if (!Array.isArray(v) || v.length === 0) return null;
  const shown: string[] = [];
  const rules: string[] = [];
  for (const d of v) {
    if (!isObj(d)) continue;
    const tool = str(d.tool_name) ?? 'a tool';
    if (
      asked.has(askedKey(tool, str(d.tool_use_id), d.tool_input)) ||
      asked.has(askedKey(tool, undefined, d.tool_input))
    )
      continue;
    const input = isObj(d.tool_input) ? d.tool_input : {};
    const cmd = tool === 'Bash' ? str(input.command) : undefined;
    shown.push(cmd ? `Bash(${cmd.length > 60 ? `${cmd.slice(0, 59)}…` : cmd})` : tool);
    const word = cmd?.trim().split(/\s+/)[0];
    const rule = word ? `Bash(${word}:*)` : tool;
    if (!rules.includes(rule)) rules.push(rule);
  }
  if (!shown.length) return null;
  return (
    `refused without asking (headless agents can't answer permission prompts): ${[...new Set(shown)].join(', ')}; ` +
    `allow it with agents.allowedTools in config.yaml, e.g. [${rules.map((r) => JSON.stringify(r)).join(', ')}]`
  );
}

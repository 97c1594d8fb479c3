/**
 * Control socket protocol: NDJSON (one JSON object per line, UTF-8) over a Unix socket.
 *
 *   request   { v: 1, id, action, payload? }
 *   response  { v: 1, id, ok: true, result } | { v: 1, id, ok: false, error: SerializedError }
 *   event     { v: 1, id: <subscribe request id>, event: ControlEvent }   (after a subscribe response)
 *
 * A connection may carry many requests; each gets exactly one response with the same `id`
 * (`id: null` when the request line could not be read far enough to find one). Responses may
 * arrive in any order: handlers run concurrently.
 *
 * This file is imported by every short-lived `klaude` command through the client: keep it free
 * of runtime imports.
 */
import type { SerializedError } from '../lib/errors.js';

export const PROTOCOL_VERSION = 1 as const;
export type ProtocolVersion = typeof PROTOCOL_VERSION;

// ── actions ────────────────────────────────────────────────────────────────

export type EmptyPayload = Record<string, never>;

export interface PingResult {
  pong: true;
  instanceId: string;
  pid: number;
  /** klaude package version of the supervisor. */
  version: string;
  protocol: number;
}

/** `cli`: started as `klaude` (foreground claude first); `ui`: started as `klaude ui` (dashboard first). Same values as the DB's instances.mode. */
export type InstanceMode = 'cli' | 'ui';

export interface StatusResult {
  instanceId: string;
  pid: number;
  projectRoot: string;
  projectHash: string;
  mode: InstanceMode;
  rootSessionId: string | null;
  foregroundSessionId: string | null;
  foregroundPid: number | null;
  switching: boolean;
  /** ISO 8601. */
  startedAt: string;
}

export interface CheckoutPayload {
  /** klaude id, unique prefix/suffix, or Claude session id; absent = parent of `fromSessionId`. */
  target?: string;
  fromSessionId?: string;
  timeoutMs?: number;
  /** Stop the target's running headless run; without it a running target is refused (E_SESSION_BUSY). */
  force?: boolean;
}
export interface CheckoutResult {
  sessionId: string;
  claudeSessionId: string;
  pid: number;
}

/**
 * Starting agents: what `klaude start` and the dashboard send a supervisor, and what agent-ops'
 * startAgents runs (in the supervisor, or in `klaude start` itself when none runs). `checkout` and
 * `checkoutNow` are for the supervisor to act on once the agents started; startAgents ignores them.
 */
export interface StartRequest {
  /**
   * The parent klaude session: the session of the klaude in this terminal (KLAUDE_SESSION_ID, set
   * in every claude klaude launches) or the dashboard's choice; absent → a top-level session. Never
   * guessed (an unrelated "newest root" made shell-started agents nest under strangers' sessions).
   * Null (no parent) only in-process: on the wire it is a string or absent.
   */
  parentId?: string | null;
  /** Agent type (a `.claude/agents/*.md` name, or a built-in). */
  type: string;
  prompt: string;
  count?: number;
  runtime?: string;
  model?: string;
  share?: boolean;
  /** Switch the foreground to the first new agent when its first turn ends. */
  checkout?: boolean;
  /** With checkout: switch as soon as its conversation has begun (its first turn is stopped). */
  checkoutNow?: boolean;
  /** Give each agent a git worktree of its own (else the definition's `worktree:`, else config agents.worktree). */
  worktree?: boolean;
  /** Directory the agent works in (the caller's cwd); default: the supervisor's (the project root). */
  cwd?: string;
  /** Spend limit in USD of each agent and its sub-agents (else config agents.budgetUsd). */
  budgetUsd?: number;
}
export interface StartResult {
  sessionIds: string[];
  /** Things to tell the person (e.g. --share found nothing to share). */
  notes?: string[];
}

export interface MessagePayload {
  sessionId: string;
  prompt: string;
}
export interface MessageResult {
  /**
   * stdin: the running CLI gets it after its turn; queued: the runtime resumes the session in a new
   * process after the turn (CLIs without streaming input); resumed: a new runtime resumed it now.
   */
  delivered: 'stdin' | 'queued' | 'resumed' | 'recovering';
  pid?: number;
}

export interface InterruptPayload {
  sessionIds: string[];
}
export interface InterruptResult {
  results: { sessionId: string; ok: boolean; code?: string }[];
}

/** The answer to an agent's permission request (runtime socket). */
export interface AnswerPayload {
  sessionId: string;
  /** klaude's approval number or a prefix of the CLI's request id; absent = the oldest pending. */
  request?: string;
  behavior: 'allow' | 'deny';
  /** allow: also add the CLI's suggested rule (claude writes it to .claude/settings.local.json). */
  always?: boolean;
  /** deny: the reason shown to the model. */
  message?: string;
  /**
   * The sender's pid, by its own word: used only where the runtime cannot ask the kernel who is at
   * the other end of the socket (see ownership/answerer.ts). Who answered is the runtime's to say.
   */
  pid?: number;
}
export interface AnswerResult {
  approvalId: number;
  requestId: string;
  tool: string;
  summary: string;
  rule?: string;
  /** Requests of this session still pending after this answer. */
  pending: number;
}

export const TOPICS = ['sessions', 'instance', 'updates'] as const;
export type Topic = (typeof TOPICS)[number];

export interface SubscribePayload {
  /** Absent or empty = all topics. */
  topics?: Topic[];
}
export interface SubscribeResult {
  subscribed: true;
}

export interface StopResult {
  stopping: true;
}

/** Request payload and result per action: server handlers and client calls are checked against it. */
export interface ActionMap {
  ping: { payload: EmptyPayload; result: PingResult };
  status: { payload: EmptyPayload; result: StatusResult };
  checkout: { payload: CheckoutPayload; result: CheckoutResult };
  start: { payload: StartRequest; result: StartResult };
  message: { payload: MessagePayload; result: MessageResult };
  interrupt: { payload: InterruptPayload; result: InterruptResult };
  subscribe: { payload: SubscribePayload; result: SubscribeResult };
  stop: { payload: EmptyPayload; result: StopResult };
  answer: { payload: AnswerPayload; result: AnswerResult };
}

export type Action = keyof ActionMap;
export type PayloadOf<A extends Action> = ActionMap[A]['payload'];
export type ResultOf<A extends Action> = ActionMap[A]['result'];

export const ACTIONS: readonly Action[] = [
  'ping',
  'status',
  'checkout',
  'start',
  'message',
  'interrupt',
  'subscribe',
  'stop',
  'answer',
];

// ── events ─────────────────────────────────────────────────────────────────

export interface SessionCreatedEvent {
  type: 'session.created';
  sessionId: string;
  parentId: string | null;
  agentType?: string;
  runtime?: string;
  status?: string;
}
export interface SessionChangedEvent {
  type: 'session.changed';
  sessionId: string;
  status?: string;
  claudeSessionId?: string | null;
  pid?: number | null;
}
export interface InstanceForegroundEvent {
  type: 'instance.foreground';
  sessionId: string | null;
  pid: number | null;
}
export interface InstanceSwitchingEvent {
  type: 'instance.switching';
  switching: boolean;
  targetSessionId?: string;
}
export interface InstanceStoppingEvent {
  type: 'instance.stopping';
}
export interface UpdateEvent {
  type: 'update';
  sessionId: string;
  text: string;
}

/**
 * Events pushed to subscribers. Extend by adding a member (type prefix picks the default topic:
 * `session.*` → sessions, `instance.*` → instance, `update*` → updates). Clients must ignore
 * event types they do not know: a newer supervisor may send more.
 */
export type ControlEvent =
  | SessionCreatedEvent
  | SessionChangedEvent
  | InstanceForegroundEvent
  | InstanceSwitchingEvent
  | InstanceStoppingEvent
  | UpdateEvent;

export function topicOf(event: { type: string }): Topic {
  if (event.type.startsWith('session.')) return 'sessions';
  if (event.type.startsWith('instance.')) return 'instance';
  return 'updates';
}

// ── frames ─────────────────────────────────────────────────────────────────

export interface RequestFrame<A extends Action = Action> {
  v: ProtocolVersion;
  id: string;
  action: A;
  payload?: PayloadOf<A>;
}

export type ResponseFrame<R = unknown> =
  | { v: number; id: string | null; ok: true; result: R }
  | { v: number; id: string | null; ok: false; error: SerializedError };

export interface EventFrame {
  v: number;
  id: string;
  event: ControlEvent;
}

/** One frame on the wire. */
export function encodeFrame(frame: object): string {
  return `${JSON.stringify(frame)}\n`;
}

// ── validation (hand-written, cheap) ───────────────────────────────────────

export type RequestCheck =
  { ok: true; request: RequestFrame } | { ok: false; id: string | null; error: SerializedError };

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

export function isAction(x: unknown): x is Action {
  return typeof x === 'string' && (ACTIONS as readonly string[]).includes(x);
}

const bad = (id: string | null, message: string, hint?: string): RequestCheck => ({
  ok: false,
  id,
  error: { code: 'E_BAD_REQUEST', message, ...(hint ? { hint } : {}) },
});

/** Parse and check one request line: JSON, envelope, version, action, payload shape. */
export function parseRequestLine(line: string): RequestCheck {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (e) {
    return bad(null, `malformed request: not JSON (${(e as Error).message})`);
  }
  return checkRequest(value);
}

/** Check a decoded request envelope (and its payload) against this protocol version. */
export function checkRequest(value: unknown): RequestCheck {
  if (!isObject(value)) return bad(null, 'malformed request: expected a JSON object');
  const id = typeof value.id === 'string' && value.id !== '' ? value.id : null;
  // A request without `v` (the design notes' sketch, hand-written scripts) is read as version 1.
  if (value.v !== PROTOCOL_VERSION && !(value.v === undefined && PROTOCOL_VERSION === 1)) {
    const theirs = `v${JSON.stringify(value.v)}`;
    return {
      ok: false,
      id,
      error: {
        code: 'E_PROTOCOL',
        message: `protocol version mismatch: request has ${theirs}, this supervisor speaks v${PROTOCOL_VERSION}`,
        hint: 'use the same klaude version for the supervisor and the command',
        details: { expected: PROTOCOL_VERSION, received: value.v ?? null },
      },
    };
  }
  if (id === null) return bad(null, 'malformed request: "id" must be a non-empty string');
  if (typeof value.action !== 'string') return bad(id, 'malformed request: "action" must be a string');
  if (!isAction(value.action)) {
    return bad(id, `unknown action "${value.action}"`, `known actions: ${ACTIONS.join(', ')}`);
  }
  const payload = value.payload === undefined || value.payload === null ? {} : value.payload;
  if (!isObject(payload)) return bad(id, `bad payload for ${value.action}: expected an object`);
  const problem = PAYLOAD_CHECKS[value.action](payload);
  if (problem) return bad(id, `bad payload for ${value.action}: ${problem}`);
  return { ok: true, request: { v: PROTOCOL_VERSION, id, action: value.action, payload } as RequestFrame };
}

type P = Record<string, unknown>;
const optStr = (p: P, k: string): string | null =>
  p[k] === undefined || typeof p[k] === 'string' ? null : `"${k}" must be a string`;
const reqStr = (p: P, k: string): string | null =>
  typeof p[k] === 'string' && p[k] !== '' ? null : `"${k}" must be a non-empty string`;
const optBool = (p: P, k: string): string | null =>
  p[k] === undefined || typeof p[k] === 'boolean' ? null : `"${k}" must be a boolean`;
const optCount = (p: P, k: string, min: number): string | null => {
  const x = p[k];
  if (x === undefined) return null;
  return typeof x === 'number' && Number.isInteger(x) && x >= min ? null : `"${k}" must be an integer ≥ ${min}`;
};
const first = (...checks: (string | null)[]): string | null => checks.find((c) => c !== null) ?? null;

const PAYLOAD_CHECKS: Record<Action, (p: P) => string | null> = {
  ping: () => null,
  status: () => null,
  stop: () => null,
  checkout: (p) =>
    first(optStr(p, 'target'), optStr(p, 'fromSessionId'), optCount(p, 'timeoutMs', 0), optBool(p, 'force')),
  start: (p) =>
    first(
      reqStr(p, 'type'),
      typeof p.prompt === 'string' ? null : '"prompt" must be a string',
      optStr(p, 'parentId'),
      optCount(p, 'count', 1),
      optStr(p, 'runtime'),
      optStr(p, 'model'),
      optBool(p, 'share'),
      optBool(p, 'checkout'),
      optBool(p, 'checkoutNow'),
      optBool(p, 'worktree'),
      optStr(p, 'cwd'),
      p.budgetUsd === undefined || (typeof p.budgetUsd === 'number' && p.budgetUsd > 0)
        ? null
        : '"budgetUsd" must be a number > 0',
    ),
  message: (p) => first(reqStr(p, 'sessionId'), typeof p.prompt === 'string' ? null : '"prompt" must be a string'),
  interrupt: (p) =>
    Array.isArray(p.sessionIds) &&
    p.sessionIds.length > 0 &&
    p.sessionIds.every((s) => typeof s === 'string' && s !== '')
      ? null
      : '"sessionIds" must be a non-empty array of strings',
  answer: (p) =>
    first(
      reqStr(p, 'sessionId'),
      p.behavior === 'allow' || p.behavior === 'deny' ? null : '"behavior" must be "allow" or "deny"',
      optStr(p, 'request'),
      optBool(p, 'always'),
      optStr(p, 'message'),
      p.pid === undefined || (Number.isInteger(p.pid) && (p.pid as number) > 0) ? null : '"pid" must be a pid',
    ),
  subscribe: (p) => {
    if (p.topics === undefined) return null;
    if (!Array.isArray(p.topics)) return '"topics" must be an array';
    const unknown = p.topics.find((t) => !(TOPICS as readonly unknown[]).includes(t));
    return unknown === undefined ? null : `unknown topic ${JSON.stringify(unknown)} (topics: ${TOPICS.join(', ')})`;
  },
};

/** Client side: is this a response frame (either outcome)? */
export function isResponseFrame(x: unknown): x is ResponseFrame {
  if (!isObject(x) || typeof x.ok !== 'boolean' || !(typeof x.id === 'string' || x.id === null)) return false;
  if (x.ok) return 'result' in x;
  return isObject(x.error) && typeof x.error.code === 'string' && typeof x.error.message === 'string';
}

/** Client side: is this an event frame? (event types are not checked: unknown ones are for the caller to ignore) */
export function isEventFrame(x: unknown): x is EventFrame {
  return isObject(x) && typeof x.id === 'string' && isObject(x.event) && typeof x.event.type === 'string';
}

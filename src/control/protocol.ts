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
import type { PriorityName } from '../core/priority.js';
import type { ImageRef } from '../core/image.js';

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
  /** klaude id, unique prefix/suffix, or Claude session id; absent = back from `fromSessionId` (its parent, or where it was opened from). */
  target?: string;
  fromSessionId?: string;
  timeoutMs?: number;
  /** Stop the target's running headless run; without it a running target is refused (E_SESSION_BUSY). */
  force?: boolean;
  /** A zone's agent: open its conversation over there (`ssh -t`) instead of bringing it here. */
  remote?: boolean;
}
export interface CheckoutResult {
  sessionId: string;
  claudeSessionId: string;
  pid: number;
  /** What the checkout did besides switching (a zone's agent brought here: from where, into which worktree). */
  note?: string;
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
  /** `--sandbox` (on) or `--no-sandbox` (off); absent: the definition's `sandbox:`, else config agents.sandbox. */
  sandbox?: 'on' | 'off';
  /** `--bypass-without-sandbox`: bypassPermissions may run unsandboxed (agent-ops/sandbox-plan.ts). */
  bypassWithoutSandbox?: boolean;
  /** Run-queue priority of each agent (else the definition's `priority:`, else normal). */
  priority?: PriorityName;
  /** `klaude fork`: the new agent continues a fork of this session's Claude conversation (in-process only). */
  forkOf?: { sessionId: string; claudeSessionId: string };
  /**
   * A start from a zone link (in-process only, docs/zones.md): the session's id chosen on the
   * person's machine, the commit its worktree starts from, the parent's conversation read there
   * (`--share`), and the mark that its requests are answered only through the link.
   */
  zone?: { id: string; base: string | null; share: string | null; from: string };
  /** A Claude Code skill the agent runs, `prompt` being its arguments (else the definition's `skill:`). */
  skill?: string;
  /** The row's title when it is not the prompt's first line (in-process only: a review's). */
  title?: string;
  /** `klaude review`: the new agent reviews this session, read-only (in-process only). */
  reviewOf?: { sessionId: string; subject: 'diff' | 'output'; focus: string | null };
}
export interface StartResult {
  sessionIds: string[];
  /** Things to tell the person (e.g. --share found nothing to share). */
  notes?: string[];
}

export interface MessagePayload {
  sessionId: string;
  prompt: string;
  /** Images sent with it (kept files: agent-ops/attachments.ts); only claude agents take them. */
  images?: ImageRef[];
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
  /** Only say what an interrupt would drop (a confirm's text); nothing is interrupted. */
  peek?: boolean;
}
export interface InterruptResult {
  results: { sessionId: string; ok: boolean; code?: string }[];
  /** Messages queued behind the turn: an interrupt drops them (they are never sent). */
  dropped?: string[];
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
   * The dashboard's or the web server's key (ownership/person-key.ts): what proves them where the
   * runtime cannot ask the kernel who is at the other end of the socket. Who answered is the
   * runtime's to say (ownership/answerer.ts); a pid the sender states is never taken.
   */
  key?: { holder: string; secret: string };
  /** From the web server: the signed-in page the answer came from (ownership/web-sessions.ts). */
  webSession?: string;
  /**
   * From a zone serve process only (docs/zones.md): who answered on the person's machine. The runtime
   * takes it only when the sender is that link (ownership/answerer.ts); from anyone else it is ignored.
   */
  onBehalf?: string;
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

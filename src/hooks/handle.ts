/**
 * What each Claude Code hook means for klaude's records. Pure DB work on a drizzle-free
 * connection, in one write transaction; the caller reads stdin, opens the DB and swallows
 * every failure (a hook must never block Claude).
 *
 * - SessionStart: link the Claude id to the klaude session (startup, resume, and after
 *   `/clear` or compaction a new id that becomes the session's current one; the tree is
 *   untouched); the session is idle at its prompt.
 * - SessionEnd: close that link (the Claude session stays resumable).
 * - UserPromptSubmit → running; Stop → idle (+ last text); StopFailure (an API error ended the
 *   turn) → idle, with why in `error` until the next prompt or start; Notification: a permission or
 *   elicitation prompt → waiting, or a dialog before a tool call (`agent_needs_input`: auto mode
 *   cannot check the call, claude ≥ 2.1.332), idle_prompt → idle; an interactive claude's PermissionRequest →
 *   waiting; PostToolUse: a tool ran → running, and pending [UPDATE] notes of its sub-agents are
 *   handed to Claude as additionalContext. A turn the person interrupts runs no hook at all:
 *   claude/transcript-follower.ts ends it from the transcript.
 * - Activity (what the row says the session is doing): an interactive claude's PreToolUse names
 *   the tool (`Bash: npm test`), its PostToolUse or PostToolUseFailure says `thinking` again.
 *   PreToolUse runs in the background, so it may land after the tool's end: then it is dropped.
 * Status changes follow core/status transitions: a finished session is not revived by a
 * late hook (only SessionStart, which is a resume, may do that).
 */
import { applyTransition, type SessionStatus } from '../core/status.js';
import type { HasSqlite } from '../db/connection.js';
import { hasPendingApproval } from '../db/repos/approvals.js';
import { addEvent } from '../db/repos/events.js';
import { updatesForHook } from '../logs/updates.js';
import { transcriptUsage } from '../claude/transcript-usage.js';
import { toolActivity, toolSummary } from '../core/tool-summary.js';
import {
  endLink,
  linkClaude,
  linkOwner,
  linkedTranscripts,
  patchSession,
  readSession,
  toolFinished,
  type HookPatch,
  type HookSession,
} from '../db/repos/hook-records.js';
import { hookNotice } from './hook-notice.js';
import { progressAfterTool, progressAtTurnStart } from './hook-progress.js';
import type { NotifyEvent } from '../core/notify-event.js';
import type { HookEventName } from './settings.js';

export interface HookPayload {
  session_id?: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  source?: string;
  reason?: string;
  prompt?: string;
  session_title?: string;
  last_assistant_message?: string;
  notification_type?: string;
  message?: string;
  tool_name?: string;
  tool_use_id?: string;
  [k: string]: unknown;
}

const clip = (s: unknown, n: number): string | undefined =>
  typeof s !== 'string' ? undefined : s.length > n ? `${s.slice(0, n - 1)}…` : s;
const str = (s: unknown): string | undefined => (typeof s === 'string' && s !== '' ? s : undefined);

/** StopFailure's `error` kinds (docs/cli-facts.md §1.3), named as a person reads them. */
const FAILURE: Record<string, string> = {
  rate_limit: 'rate limited',
  overloaded: 'API overloaded',
  authentication_failed: 'authentication failed',
  billing_error: 'billing error',
  invalid_request: 'invalid request',
  model_not_found: 'model not found',
  server_error: 'API server error',
  max_output_tokens: 'output token limit reached',
  // Seen for a plain HTTP 400 (claude 2.1.197): claude's text says the rest.
  unknown: 'API error',
};

/** One line: what failed, then claude's own words for it (`rate limited: …`). */
export function turnFailure(p: HookPayload): string {
  const kind =
    typeof p.error === 'string' && p.error !== ''
      ? (FAILURE[p.error] ?? p.error.replace(/_/g, ' '))
      : 'the turn failed';
  const said = typeof p.last_assistant_message === 'string' ? p.last_assistant_message.replace(/\s+/g, ' ').trim() : '';
  if (!said) return kind;
  return clip(said.toLowerCase().startsWith(kind.toLowerCase()) ? said : `${kind}: ${said}`, 300)!;
}

/** Notification types that mean "a person must act" (docs/cli-facts.md §1.3). */
const NEEDS_PERSON = new Set(['permission_prompt', 'elicitation_dialog']);

export interface HookOutcome {
  /** The status written, if it changed. */
  status?: SessionStatus;
  /** Text for Claude (stdout of the hook): sub-agents' [UPDATE] notes after a tool call. */
  stdout?: string;
  /** An event to tell outside the terminal (hook-notice.ts); the caller hands it to `klaude __notify`. */
  notice?: NotifyEvent;
}

export interface HookEnv {
  /** KLAUDE_SWITCHED_FROM: this claude was launched by a checkout from that session (`BNX8ZG33 (helper)`). */
  switchedFrom?: string;
  /** The checkout's `klaude: switched to …` line, shown again by claude (systemMessage). */
  switchNotice?: string;
  /** Where transcript usage progress is kept between turns (see claude/transcript-usage.ts). */
  usageCacheDir?: string;
  /** The hook came from an interactive claude (settings.ts INTERACTIVE_ARG), not a headless runtime's. */
  interactive?: boolean;
}

export function handleHook(
  db: HasSqlite,
  envSessionId: string,
  event: HookEventName,
  p: HookPayload,
  env: HookEnv = {},
): HookOutcome {
  const out = db.sqlite.transaction(() => record(db, owner(db, envSessionId, event, p), event, p, env)).immediate();
  const source = str(p.source) ?? 'startup';
  if (
    event === 'SessionStart' &&
    (env.switchedFrom || env.switchNotice) &&
    (source === 'resume' || source === 'startup')
  ) {
    // systemMessage: claude shows it on its own screen ("SessionStart:resume says: …"); claude
    // ≥ 2.1.332 draws in the alternate screen, hiding the line klaude printed before it.
    out.stdout = JSON.stringify({
      ...(env.switchNotice ? { systemMessage: env.switchNotice } : {}),
      ...(env.switchedFrom
        ? { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: switchContext(env.switchedFrom) } }
        : {}),
    });
  }
  return out;
}

/** What a Claude opened by a checkout is told, so a cut-off `klaude checkout` Bash call makes sense to it. */
export function switchContext(from: string): string {
  return (
    `You were opened by klaude checkout from session ${from}: the person's terminal switched to this conversation. ` +
    'If a Bash call of yours ran `klaude checkout`, it ended because of that switch, not because of an error.'
  );
}

/**
 * Which klaude session the event belongs to: the one the payload's Claude session id is
 * linked to, else KLAUDE_SESSION_ID. The env is per launch; the link is the record of
 * which conversation is which, so it wins (e.g. a claude whose env went stale). SessionStart
 * is where a new Claude id (after /clear) gets linked, so it always goes by the env.
 */
function owner(db: HasSqlite, envSessionId: string, event: HookEventName, p: HookPayload): string {
  const claudeId = str(p.session_id);
  if (event === 'SessionStart' || !claudeId) return envSessionId;
  return linkOwner(db, claudeId) ?? envSessionId;
}

/** What a hook sees of its session while it decides what the event changes. */
interface EventInput {
  db: HasSqlite;
  klaudeSessionId: string;
  session: HookSession;
  p: HookPayload;
  o: HookEnv;
  claudeId: string | undefined;
  now: number;
  /** The columns the event changes (filled in by its rule). */
  patch: HookPatch;
}

/** One event's meaning: fills in `patch`, returns the status it moves the session to (if any). */
type EventRule = (e: EventInput) => SessionStatus | undefined;

function onSessionStart({ db, klaudeSessionId, p, claudeId, now, patch }: EventInput): SessionStatus {
  if (claudeId) {
    const source = str(p.source) ?? 'startup';
    linkClaude(
      db,
      { klaudeSessionId, claudeSessionId: claudeId, transcriptPath: str(p.transcript_path) ?? null, source },
      now,
    );
  }
  patch.error = null;
  return 'idle';
}

function onSessionEnd({ db, p, claudeId, now, patch }: EventInput): undefined {
  if (claudeId) endLink(db, claudeId, str(p.reason) ?? null, now);
  patch.activity = null;
}

function onUserPromptSubmit({ session, p, now, patch }: EventInput): SessionStatus {
  patch.activity = 'thinking';
  patch.progress = progressAtTurnStart(session.progress ?? null);
  patch.runStartedAt = now;
  patch.error = null;
  if (!session.prompt && str(p.prompt)) patch.prompt = clip(p.prompt, 2000);
  return 'running';
}

function onStop({ p, patch }: EventInput): SessionStatus {
  patch.activity = null;
  if (str(p.last_assistant_message)) patch.lastText = clip(p.last_assistant_message, 500);
  return 'idle';
}

function onStopFailure({ p, patch }: EventInput): SessionStatus {
  // The turn ended on an API error (claude runs this instead of Stop): idle, and why.
  patch.activity = null;
  patch.error = turnFailure(p);
  if (str(p.last_assistant_message)) patch.lastText = clip(p.last_assistant_message, 500);
  return 'idle';
}

/**
 * Claude 2.1.332 says `agent_needs_input` for its own dialogs, auto mode's "can't check actions in
 * this session" among them (no PermissionRequest runs for that one), and also when one of its
 * background agents is blocked: only with a tool of this session's turn about to run (PreToolUse
 * named it) is it this session's dialog.
 */
function dialogBeforeTool(session: HookSession, type: unknown): boolean {
  return (
    type === 'agent_needs_input' &&
    session.status === 'running' &&
    session.activity !== null &&
    session.activity !== 'thinking'
  );
}

function onNotification({ p, session }: EventInput): SessionStatus | undefined {
  if (typeof p.notification_type === 'string' && NEEDS_PERSON.has(p.notification_type)) return 'waiting';
  if (dialogBeforeTool(session, p.notification_type)) return 'waiting';
  if (p.notification_type === 'idle_prompt') return 'idle';
  return undefined;
}

function onPermissionRequest({ session, p, patch }: EventInput): SessionStatus | undefined {
  // Only interactive claudes have this hook: the permission dialog is on their screen now.
  if (session.status !== 'running') return undefined;
  // What it waits for, with the wait itself: PreToolUse runs beside this hook and may land later.
  if (str(p.tool_name)) patch.activity = toolActivity(p.tool_name!, toolSummary(p.tool_name!, p.tool_input));
  return 'waiting';
}

function onPreToolUse({ db, klaudeSessionId, session, p, patch }: EventInput): undefined {
  // Only interactive claudes have this hook. Late (the turn ended, or the tool's end was
  // recorded first): the tool is no longer running, so it is not what the session does.
  if (
    (session.status === 'running' || session.status === 'waiting') &&
    str(p.tool_name) &&
    !toolFinished(db, klaudeSessionId, str(p.tool_use_id))
  ) {
    patch.activity = toolActivity(p.tool_name!, toolSummary(p.tool_name!, p.tool_input));
  }
}

function onPostToolUse({ db, klaudeSessionId, session, p, o, patch }: EventInput): SessionStatus | undefined {
  // A tool finished, so any permission prompt before it was answered — unless a headless
  // agent's request is still held by its runtime (a parallel tool call finished meanwhile).
  const answered =
    session.status === 'idle' || (session.status === 'waiting' && !hasPendingApproval(db, klaudeSessionId));
  // Headless runtimes get this hook too but keep their own activity (and progress). Hooks of
  // interactive claudes launched before INTERACTIVE_ARG existed: the root's only, as then.
  if (o.interactive || session.type === 'tui') {
    patch.activity = 'thinking';
    patch.progress = progressAfterTool(session.progress ?? null, str(p.tool_name), p.tool_input, p.tool_response);
  }
  return answered ? 'running' : undefined;
}

function onPostToolUseFailure({ db, klaudeSessionId, session, p, patch }: EventInput): SessionStatus | undefined {
  // Only interactive claudes have this hook. An interrupted tool ends here too (is_interrupt):
  // then the turn is over, not running (claude/transcript-follower.ts ends it), so nothing
  // changes. Otherwise a tool that was asked for and failed answers a permission dialog, as
  // PostToolUse does.
  if (p.is_interrupt === true) return undefined;
  const to = session.status === 'waiting' && !hasPendingApproval(db, klaudeSessionId) ? 'running' : undefined;
  if (session.status === 'running' || to === 'running') patch.activity = 'thinking';
  return to;
}

const RULES: Record<HookEventName, EventRule> = {
  SessionStart: onSessionStart,
  SessionEnd: onSessionEnd,
  UserPromptSubmit: onUserPromptSubmit,
  Stop: onStop,
  StopFailure: onStopFailure,
  Notification: onNotification,
  PermissionRequest: onPermissionRequest,
  PreToolUse: onPreToolUse,
  PostToolUse: onPostToolUse,
  PostToolUseFailure: onPostToolUseFailure,
};

/**
 * An interactive session's turns pass through no klaude runtime: its tokens come from Claude's
 * transcripts, summed when a turn ends (agents' usage is recorded by their runtime).
 */
function addTurnUsage({ db, klaudeSessionId, session, p, o, patch }: EventInput, event: HookEventName): void {
  if ((event !== 'Stop' && event !== 'StopFailure' && event !== 'SessionEnd') || session.type !== 'tui') return;
  const files = linkedTranscripts(db, klaudeSessionId);
  if (str(p.transcript_path)) files.push(p.transcript_path!);
  const u = transcriptUsage(files, o.usageCacheDir);
  if (u.tokensIn > 0 || u.tokensOut > 0) Object.assign(patch, u);
}

/** The event in the audit trail (`hook.<event>`), with the payload fields worth keeping. */
function logHookEvent({ db, klaudeSessionId, session, p, claudeId }: EventInput, event: HookEventName): void {
  addEvent(db, {
    projectId: session.projectId,
    klaudeSessionId,
    kind: `hook.${event}`,
    payload: {
      claudeSessionId: claudeId,
      source: str(p.source),
      reason: str(p.reason),
      notificationType: str(p.notification_type),
      tool: str(p.tool_name),
      toolUseId: str(p.tool_use_id),
      prompt: clip(p.prompt, 200),
      error: str(p.error),
    },
  });
}

function record(db: HasSqlite, klaudeSessionId: string, event: HookEventName, p: HookPayload, o: HookEnv): HookOutcome {
  const session = readSession(db, klaudeSessionId);
  if (!session) return {};
  const e: EventInput = { db, klaudeSessionId, session, p, o, claudeId: str(p.session_id), now: Date.now(), patch: {} };
  const { patch } = e;
  const to = RULES[event](e);
  if (str(p.session_title) && !session.title) patch.title = clip(p.session_title, 120);
  addTurnUsage(e, event);
  if (
    to &&
    to !== session.status &&
    applyTransition(session.status, to, { resume: event === 'SessionStart' }).allowed
  ) {
    patch.status = to;
  }
  patchSession(db, klaudeSessionId, patch, e.now);
  const failure = event === 'StopFailure' ? (patch.error ?? undefined) : undefined;
  const notice = hookNotice({ event, session, to: patch.status, p, failure, now: e.now });
  // Children's [UPDATE] notes reach the parent Claude right after its next tool call.
  const updates = event === 'PostToolUse' ? updatesForHook(db, klaudeSessionId) : null;
  logHookEvent(e, event);
  return {
    status: patch.status,
    ...(notice ? { notice } : {}),
    ...(updates
      ? { stdout: JSON.stringify({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: updates } }) }
      : {}),
  };
}

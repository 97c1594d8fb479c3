/**
 * What each Claude Code hook means for klaude's records. Pure DB work: the caller
 * reads stdin, opens the DB and swallows every failure (a hook must never block Claude).
 */
import type { SessionStatus } from '../core/status.js';
import type { Db } from '../db/client.js';
import { addEvent } from '../db/repos/events.js';
import { endClaudeLink, linkClaudeSession } from '../db/repos/links.js';
import { getSession, updateSession, type SessionPatch } from '../db/repos/sessions.js';
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

const clip = (s: string | undefined, n: number): string | undefined => (s === undefined ? undefined : s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** Notification types that mean "a person must act" (docs/cli-facts.md §1.3). */
const NEEDS_PERSON = new Set(['permission_prompt', 'elicitation_dialog']);

export interface HookOutcome {
  status?: SessionStatus;
  /** Text for Claude (stdout of the hook); none for now. */
  stdout?: string;
}

export function handleHook(db: Db, klaudeSessionId: string, event: HookEventName, p: HookPayload): HookOutcome {
  const session = getSession(db, klaudeSessionId);
  if (!session) return {};
  const patch: SessionPatch = {};
  const claudeId = p.session_id;
  switch (event) {
    case 'SessionStart':
      if (claudeId) {
        linkClaudeSession(db, {
          klaudeSessionId,
          claudeSessionId: claudeId,
          transcriptPath: p.transcript_path ?? null,
          source: p.source ?? 'startup',
        });
      }
      patch.status = 'idle';
      if (p.session_title && !session.title) patch.title = clip(p.session_title, 120);
      break;
    case 'SessionEnd':
      if (claudeId) endClaudeLink(db, claudeId, p.reason ?? null);
      break;
    case 'UserPromptSubmit':
      patch.status = 'running';
      if (p.session_title && !session.title) patch.title = clip(p.session_title, 120);
      if (!session.prompt && p.prompt) patch.prompt = clip(p.prompt, 2000);
      break;
    case 'Stop':
      patch.status = 'idle';
      if (p.last_assistant_message) patch.lastText = clip(p.last_assistant_message, 500);
      break;
    case 'Notification':
      if (p.notification_type && NEEDS_PERSON.has(p.notification_type)) patch.status = 'waiting';
      else if (p.notification_type === 'idle_prompt') patch.status = 'idle';
      break;
    case 'PostToolUse':
      // A tool finished, so any permission prompt before it was answered.
      if (session.status === 'waiting' || session.status === 'idle') patch.status = 'running';
      break;
  }
  if (Object.keys(patch).length) updateSession(db, klaudeSessionId, { ...patch, updatedAt: Date.now() });
  addEvent(db, {
    projectId: session.projectId,
    klaudeSessionId,
    kind: `hook.${event}`,
    payload: {
      claudeSessionId: claudeId,
      source: p.source,
      reason: p.reason,
      notificationType: p.notification_type,
      tool: p.tool_name,
      prompt: clip(p.prompt, 200),
    },
  });
  return { status: patch.status };
}

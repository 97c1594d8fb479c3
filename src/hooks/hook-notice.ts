/**
 * What an interactive claude's hook has to tell outside the terminal (config notify.*): the rare
 * transitions only — a permission or input dialog opened (needs you), claude's own "waiting for
 * your input" (needs you), a turn an API error ended (failed). The hook decides and names the
 * event; a detached `klaude __notify` tells it (src/agent-ops/notify-detached.ts), so the hook
 * loads no config and waits on no notifier. A turn's plain end is not told: the person is at that
 * prompt, and claude's idle notification (after about a minute) says when it waits for them.
 */
import { toolActivity, toolSummary } from '../core/tool-summary.js';
import type { SessionStatus } from '../core/status.js';
import type { NotifyEvent } from '../core/notify-event.js';
import type { HookSession } from '../db/repos/hook-records.js';
import type { HookEventName } from './settings.js';

interface NoticeInput {
  event: HookEventName;
  session: HookSession;
  /** The status this hook wrote (undefined: unchanged). */
  to: SessionStatus | undefined;
  p: { tool_name?: unknown; tool_input?: unknown; notification_type?: unknown; message?: unknown };
  /** StopFailure's reason, one line. */
  failure?: string;
  now: number;
}

const text = (s: unknown): string | undefined => (typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined);

export function hookNotice({ event, session, to, p, failure, now }: NoticeInput): NotifyEvent | undefined {
  const id = session.id;
  const run = session.runStartedAt ?? 0;
  if (to === 'waiting') {
    // Each dialog is one transition to waiting (the hook's IMMEDIATE transaction): keyed by when.
    const tool = text(p.tool_name);
    const summary = tool ? toolSummary(tool, p.tool_input) : undefined;
    const detail = tool ? toolActivity(tool, summary ?? '') : text(p.message);
    return { kind: 'needs_you', sessionId: id, eventKey: `needs_you:dialog:${id}:${now}`, detail, tool, summary };
  }
  if (event === 'Notification' && p.notification_type === 'idle_prompt') {
    const detail = text(p.message) ?? 'waiting for your input';
    return { kind: 'needs_you', sessionId: id, eventKey: `needs_you:idle:${id}:${run}`, detail };
  }
  if (event === 'StopFailure')
    return { kind: 'failed', sessionId: id, eventKey: `failed:${id}:${run}`, detail: failure };
  return undefined;
}

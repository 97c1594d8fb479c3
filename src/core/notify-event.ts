/**
 * What a notification tells, and one event to tell: written by the hook (hooks/hook-notice.ts),
 * which hands it to a detached notifier, and by the runtime; told by agent-ops/notify.ts.
 */

/** A session needs the person, a run ended well or failed, a tree spent its budget. */
export const NOTIFY_KINDS = ['needs_you', 'done', 'failed', 'over_budget'] as const;
export type NotifyKind = (typeof NOTIFY_KINDS)[number];

export interface NotifyEvent {
  kind: NotifyKind;
  sessionId: string;
  /** Names the event for good: the same event seen twice (by two processes) has the same key. */
  eventKey: string;
  /** What it is about: `Bash: npm test`, the failure's reason. */
  detail?: string;
  tool?: string;
  summary?: string;
}

/**
 * The `[UPDATE]` channel from sub-agents to their parent (design note 004): agents write
 * `[UPDATE] <text>` lines, the runtime stores them in `agent_updates`, and the parent gets them
 * once — injected by the PostToolUse hook (`updatesForHook`) or printed by `klaude watch`.
 * Acknowledging is what "delivered" means: whoever acknowledges an update shows it; nobody else does.
 *
 * Raw SQL through repos/updates.ts (HasSqlite), so the hook can use the drizzle-free FastDb.
 */
import { shortId } from '../core/ids.js';
import type { HasSqlite } from '../db/connection.js';
import { sessionTypes } from '../db/repos/listing.js';
import { sessionNames } from '../db/repos/session-marks.js';
import { nameSuffix } from '../core/session-title.js';
import { ackUpdates, pendingUpdates, takePendingUpdates, type UpdateRow } from '../db/repos/updates.js';
import { safeText } from '../lib/escapes.js';

export interface UpdateView {
  id: number;
  /** The child that reported it. */
  sessionId: string;
  shortId: string;
  /** The child's agent type, when the session still exists. */
  agentType: string | null;
  /** The title the person gave the child (`klaude rename`), if any. */
  name?: string | null;
  /** The session it is for. */
  parentSessionId: string;
  text: string;
  /**
   * null: the agent's `[UPDATE]`; 'approval': it waits for the person to answer a permission
   * request; 'approval_parent': the parent may answer it (agents.approvals: parent).
   */
  kind: string | null;
  createdAt: number;
}

/** Attach the reporting sessions' types (one query). */
export function describeUpdates(db: HasSqlite, rows: readonly UpdateRow[]): UpdateView[] {
  const ids = rows.map((r) => r.sessionId);
  const types = sessionTypes(db, ids);
  const names = sessionNames(db, ids);
  return rows.map((r) => ({
    id: r.id,
    sessionId: r.sessionId,
    shortId: shortId(r.sessionId),
    agentType: types.get(r.sessionId) ?? null,
    name: names.get(r.sessionId) ?? null,
    parentSessionId: r.parentSessionId,
    text: r.text,
    kind: r.kind ?? null,
    createdAt: r.createdAt,
  }));
}

/**
 * `[UPDATE] 8HJ2KD0P (reviewer): tests pass`, or for a permission request
 * `[NEEDS APPROVAL] 8HJ2KD0P Bash: npm test`.
 */
export function formatUpdateLine(u: UpdateView): string {
  const text = safeText(u.text)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
  if (u.kind?.startsWith('approval')) return `[NEEDS APPROVAL] ${u.shortId} ${text}`;
  const who = `${u.agentType ? `${u.shortId} (${safeText(u.agentType)})` : u.shortId}${safeText(nameSuffix(u.name))}`;
  return `[UPDATE] ${who}: ${text}`;
}

/**
 * Pending updates for these parents, oldest first, not acknowledged. `filter` keeps only updates
 * whose text matches (the others stay pending for someone else).
 */
export function pendingUpdatesFor(db: HasSqlite, parentIds: readonly string[], filter?: RegExp): UpdateView[] {
  const rows = parentIds.flatMap((p) => pendingUpdates(db, p)).sort((a, b) => a.id - b.id);
  const kept = filter ? rows.filter((r) => filter.test(r.text)) : rows;
  return describeUpdates(db, kept);
}

/**
 * Acknowledge each update; returns only those this call acknowledged (an update claimed meanwhile
 * by a hook or another watcher is dropped, so every update is shown exactly once).
 */
export function claimUpdates(db: HasSqlite, views: readonly UpdateView[]): UpdateView[] {
  return views.filter((v) => ackUpdates(db, [v.id]) === 1);
}

/**
 * For the PostToolUse hook: the parent's pending child updates as text for `additionalContext`,
 * acknowledged atomically (two concurrent hooks never inject the same update); null when there
 * are none. Cost when there are none: one indexed UPDATE that matches nothing.
 */
export function updatesForHook(db: HasSqlite, klaudeSessionId: string): string | null {
  const rows = takePendingUpdates(db, klaudeSessionId);
  if (rows.length === 0) return null;
  const views = describeUpdates(db, rows);
  const lines = views.map(formatUpdateLine);
  const head =
    rows.length === 1 ? 'klaude: an update from a sub-agent' : `klaude: ${rows.length} updates from sub-agents`;
  const text = `${head} (\`klaude logs <id>\` shows its log):\n${lines.join('\n')}`;
  if (!views.some((v) => v.kind?.startsWith('approval'))) return text;
  return `${text}\n${approvalHint(views.some((v) => v.kind === 'approval_parent') ? 'parent' : 'person')}`;
}

/** What the parent Claude may do about `[NEEDS APPROVAL]` (config agents.approvals). */
export function approvalHint(approver: 'person' | 'parent'): string {
  return approver === 'parent'
    ? '[NEEDS APPROVAL]: the sub-agent waits for a permission answer. Answer it: `klaude approve <id>` (once), `klaude approve <id> --always` (also adds the rule), or `klaude deny <id> --reason "<why>"`.'
    : '[NEEDS APPROVAL]: the sub-agent waits for the person to answer a permission request (klaude dashboard, or `klaude approve`/`deny` in their shell); you cannot answer it (config agents.approvals: person).';
}

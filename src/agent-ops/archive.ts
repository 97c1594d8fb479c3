/**
 * `klaude archive` / `klaude delete`: retire finished sessions from the CLI, as the dashboard's
 * `d` does. Both take each named session with its sub-agents, and refuse the whole request if
 * any of them still has a live process, is mid-turn or is being taken over (a live conversation
 * claim: a resume or checkout under way): nothing running is ever stopped here. The subtree, the
 * checks and the write are one IMMEDIATE transaction, so a session that starts meanwhile is seen.
 * Archive only hides (`sessions --all` and the dashboard's `a` still show them); delete removes
 * the rows (links, processes and updates cascade) and the log files.
 */
import { rmSync } from 'node:fs';
import { shortId } from '../core/ids.js';
import { isActive } from '../core/status.js';
import { tx } from '../db/client.js';
import { currentProcesses } from '../db/repos/processes.js';
import { childrenOf, deleteSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { liveRows } from '../lib/process.js';
import { claimedByOther } from '../ownership/conversation-claim.js';
import type { AgentServices } from './context.js';
import { findAgent, logPathOf } from './follow-agents.js';
import { reapOrRecover } from './recover.js';
import { forgetAttachments } from './attachments.js';

/** The named sessions and their descendants, each once, parents first. */
export function withSubtrees(svc: AgentServices, inputs: readonly string[]): SessionRow[] {
  const out = new Map<string, SessionRow>();
  const stack = inputs.map((i) => findAgent(svc, i));
  while (stack.length) {
    const s = stack.shift()!;
    if (out.has(s.id)) continue;
    out.set(s.id, s);
    stack.push(...childrenOf(svc.db, s.id));
  }
  return [...out.values()];
}

/** Why this session can't be retired now, or null. */
function busy(svc: AgentServices, s: SessionRow): string | null {
  const live = liveRows(currentProcesses(svc.db, s.id))[0];
  if (live) return `${shortId(s.id)} (${s.type}) has a live ${live.kind} process (pid ${live.pid})`;
  const taker = claimedByOther(svc.db, s.id);
  if (taker) return `${shortId(s.id)} (${s.type}) is being taken by ${taker}`;
  if (isActive(s.status) || s.status === 'pending') return `${shortId(s.id)} (${s.type}) is ${s.status}`;
  return null;
}

function assertNoneBusy(svc: AgentServices, rows: readonly SessionRow[], verb: string): void {
  for (const s of rows) {
    const why = busy(svc, s);
    if (why) {
      throw new KlaudeError('E_SESSION_BUSY', `${why}: only finished sessions can be ${verb}`, {
        hint: `interrupt it (\`klaude interrupt ${shortId(s.id)}\`) or wait until it is done (\`klaude wait ${shortId(s.id)}\`); exit its claude if it is open`,
      });
    }
  }
}

/**
 * A session that looks active but whose runtime died unnoticed is recorded first (recovered, if
 * `agents.recover` says so — then it is busy — else ended), so a dead run never blocks retiring it.
 */
function settleDeadRuns(svc: AgentServices, inputs: readonly string[]): void {
  for (const s of withSubtrees(svc, inputs)) if (isActive(s.status)) reapOrRecover(svc, s.id);
}

export function archiveSessions(svc: AgentServices, inputs: readonly string[], restore = false): SessionRow[] {
  if (!restore) settleDeadRuns(svc, inputs);
  return tx(svc.db, () => {
    const rows = withSubtrees(svc, inputs);
    if (!restore) assertNoneBusy(svc, rows, 'archived');
    const now = Date.now();
    return rows.map((s) => updateSession(svc.db, s.id, { archivedAt: restore ? null : now }) ?? s);
  });
}

export function deleteSessions(svc: AgentServices, inputs: readonly string[]): SessionRow[] {
  settleDeadRuns(svc, inputs);
  const rows = tx(svc.db, () => {
    const found = withSubtrees(svc, inputs);
    assertNoneBusy(svc, found, 'deleted');
    // Children first, so no row is left pointing at a deleted parent mid-way.
    for (const s of [...found].reverse()) deleteSession(svc.db, s.id);
    return found;
  });
  for (const s of rows) {
    rmSync(logPathOf(svc, s), { force: true });
    forgetAttachments(svc.home, s);
  }
  return rows;
}

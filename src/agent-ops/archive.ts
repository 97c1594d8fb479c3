/**
 * `klaude archive` / `klaude delete`: retire finished sessions from the CLI, as the dashboard's
 * `d` does. Both take each named session with its sub-agents, and refuse the whole request if
 * any of them still has a live process, is mid-turn or is being taken over (a live conversation
 * claim: a resume or checkout under way): nothing running is ever stopped here. The subtree, the
 * checks and the write are one IMMEDIATE transaction, so a session that starts meanwhile is seen.
 * Archive hides (`sessions --all` and the dashboard's `a` still show them) and removes the
 * worktrees of archived agents that `klaude worktree prune` would remove without asking: merged or
 * empty, no ignored files, and no other session working in them; the rest are kept and named.
 * Every surface archives through `archive` here (the CLI, the dashboard's `d`, other-project rows,
 * the web page), so the rule and its refusals are one. Delete removes the rows (links, processes
 * and updates cascade) and the log files.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { shortId } from '../core/ids.js';
import { isActive } from '../core/status.js';
import { tx } from '../db/client.js';
import { currentProcesses } from '../db/repos/processes.js';
import { childrenOf, deleteSession, listSessions, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { gitTopLevel } from '../git/exec.js';
import { pruneWorktrees, type PruneResult } from '../git/prune.js';
import { safeText } from '../lib/escapes.js';
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
  if (isActive(s.status) || s.status === 'pending' || s.status === 'queued')
    return `${shortId(s.id)} (${s.type}) is ${s.status}`;
  return null;
}

function assertNoneBusy(svc: AgentServices, rows: readonly SessionRow[], verb: string): void {
  for (const s of rows) {
    const why = busy(svc, s);
    if (why) {
      throw new KlaudeError('E_SESSION_BUSY', `${why}: only finished sessions can be ${verb}`, {
        hint:
          s.status === 'queued'
            ? `it would still start: take it out of the queue first (\`klaude interrupt ${shortId(s.id)}\` cancels it)`
            : `interrupt it (\`klaude interrupt ${shortId(s.id)}\`) or wait until it is done (\`klaude wait ${shortId(s.id)}\`); exit its claude if it is open`,
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

/** The rows only, in one transaction (`archive` is the service; this is its first half). */
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

export interface ArchiveOutcome {
  /** The sessions archived (or restored), parents first. */
  sessions: SessionRow[];
  /** What became of the archived agents' worktrees (nothing on restore). */
  worktrees: PruneResult[];
}

/**
 * Archive (or restore) these sessions with their sub-agents, then remove the worktrees that hold
 * nothing to lose. Refuses (E_SESSION_BUSY) when any of them runs, has a live process or is being
 * taken over; nothing is stopped.
 */
export async function archive(
  svc: AgentServices,
  inputs: readonly string[],
  o: { restore?: boolean } = {},
): Promise<ArchiveOutcome> {
  const sessions = archiveSessions(svc, inputs, o.restore === true);
  const trees = o.restore ? [] : sessions.filter((s) => s.worktreeBranch);
  const top = trees.length ? gitTopLevel(svc.projectRoot) : null;
  if (!top) return { sessions, worktrees: [] };
  const worktrees = await pruneWorktrees(trees, top, { inUse: worktreeUsers(svc) });
  return { sessions, worktrees };
}

/** The directory a session works in (its launch metadata), when recorded. */
function workDir(s: SessionRow): string | null {
  const cwd = (s.metadata as { cwd?: unknown } | null)?.cwd;
  return typeof cwd === 'string' ? cwd : null;
}

/**
 * Who else works in a worktree: a session of the project, not archived, whose directory is inside
 * it (a fork made before forks had worktrees of their own, an agent started from a shell there).
 * Removing the worktree would take the directory from under it.
 */
export function worktreeUsers(svc: AgentServices): (s: SessionRow) => string | null {
  const others = listSessions(svc.db, { projectId: svc.projectHash });
  return (s) => {
    const wt = s.worktreePath;
    if (!wt) return null;
    const user = others.find((o) => {
      const dir = o.id === s.id ? null : workDir(o);
      const rel = dir === null ? null : path.relative(wt, dir);
      return rel !== null && !rel.startsWith('..') && !path.isAbsolute(rel);
    });
    return user ? `${user.type} ${shortId(user.id)} works in it (archive that first)` : null;
  };
}

/** One line per worktree, as `klaude worktree prune` prints it. */
export function worktreeLine(r: PruneResult): string {
  const who = shortId(r.sessionId);
  if (r.action === 'removed') {
    const gone = r.ignored ? `, and with it its ignored files: ${r.ignored.join(', ')}` : '';
    return safeText(`removed ${who}'s worktree and branch (${r.state})${gone}`);
  }
  return safeText(`kept ${who}'s worktree: ${r.reason ?? ''}`);
}

/** What an archive kept and why, one sentence for a notice; null when it kept nothing. */
export function archiveNote(o: ArchiveOutcome): string | null {
  const kept = o.worktrees.filter((r) => r.action === 'kept');
  return kept.length ? kept.map(worktreeLine).join('; ') : null;
}

/**
 * Removing the worktrees of finished agents (`klaude worktree prune`, and archiving). A worktree
 * goes without asking when its branch is merged into the person's HEAD or empty (nothing
 * committed, nothing uncommitted); otherwise only when the caller says so (asked, or --force).
 * The branch is deleted with it. Running agents' worktrees are never touched.
 */
import { existsSync } from 'node:fs';
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import type { SessionRow } from '../db/repos/sessions.js';
import { git, gitStatus, isAncestor } from './exec.js';

export type WorktreeState =
  /** Its branch is in the person's HEAD and nothing is left uncommitted. */
  | 'merged'
  /** Nothing committed on the branch and nothing uncommitted. */
  | 'empty'
  /** Work that is not in the person's HEAD (committed or not). */
  | 'unmerged'
  /** The agent has not finished. */
  | 'running'
  /** Already removed. */
  | 'removed';

export interface WorktreeInfo {
  session: SessionRow;
  state: WorktreeState;
  /** Uncommitted files in the worktree. */
  dirty: number;
}

export function worktreeState(s: SessionRow, top: string): WorktreeInfo {
  const wt = s.worktreePath;
  const branchRef = `refs/heads/${s.worktreeBranch}`;
  const hasBranch = s.worktreeBranch !== null && git(top, ['rev-parse', '--verify', '-q', branchRef]).code === 0;
  if (!wt || (!existsSync(wt) && !hasBranch)) return { session: s, state: 'removed', dirty: 0 };
  if (!isTerminal(s.status)) return { session: s, state: 'running', dirty: 0 };
  const dirty = existsSync(wt) ? gitStatus(wt).length : 0;
  if (dirty > 0 || !hasBranch) return { session: s, state: 'unmerged', dirty };
  const tip = git(top, ['rev-parse', branchRef]).stdout.trim();
  if (tip === s.worktreeBase) return { session: s, state: 'empty', dirty };
  return { session: s, state: isAncestor(top, tip, 'HEAD') ? 'merged' : 'unmerged', dirty };
}

export interface PruneResult {
  sessionId: string;
  state: WorktreeState;
  action: 'removed' | 'kept';
  /** Why it was kept, or what removal failed on. */
  reason?: string;
}

/** Remove the worktree and its branch (the branch even when unmerged: the caller decided). */
export function removeAgentWorktree(s: SessionRow, top: string): void {
  if (s.worktreePath && existsSync(s.worktreePath)) {
    const r = git(top, ['worktree', 'remove', '--force', s.worktreePath]);
    if (r.code !== 0) throw new Error(r.stderr.trim().split('\n')[0] || `git worktree remove: exit ${r.code}`);
  }
  git(top, ['worktree', 'prune']);
  if (s.worktreeBranch) git(top, ['branch', '-D', '-q', s.worktreeBranch]);
}

/**
 * Prune these sessions' worktrees. `confirm` is asked about unmerged work (absent: kept, with
 * the hint to use --force); `force` removes without asking.
 */
export async function pruneWorktrees(
  sessions: SessionRow[],
  top: string,
  o: { force?: boolean; confirm?: (info: WorktreeInfo) => Promise<boolean> } = {},
): Promise<PruneResult[]> {
  const out: PruneResult[] = [];
  for (const s of sessions) {
    if (!s.worktreeBranch) continue;
    const info = worktreeState(s, top);
    if (info.state === 'removed') continue;
    if (info.state === 'running') {
      out.push({
        sessionId: s.id,
        state: info.state,
        action: 'kept',
        reason: `${s.type} ${shortId(s.id)} is ${s.status}`,
      });
      continue;
    }
    if (info.state === 'unmerged' && !o.force && !(o.confirm && (await o.confirm(info)))) {
      const what = info.dirty
        ? `${info.dirty} uncommitted file${info.dirty === 1 ? '' : 's'}`
        : `unmerged commits on ${s.worktreeBranch}`;
      out.push({
        sessionId: s.id,
        state: info.state,
        action: 'kept',
        reason: `${what} (klaude merge ${shortId(s.id)}, or prune --force to drop them)`,
      });
      continue;
    }
    try {
      removeAgentWorktree(s, top);
      out.push({ sessionId: s.id, state: info.state, action: 'removed' });
    } catch (e) {
      out.push({
        sessionId: s.id,
        state: info.state,
        action: 'kept',
        reason: `removing it failed: ${(e as Error).message}`,
      });
    }
  }
  return out;
}

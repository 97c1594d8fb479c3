/**
 * Removing the worktrees of finished agents (`klaude worktree prune`, and archiving). A worktree
 * goes without asking when its branch is merged into the person's HEAD or empty (nothing
 * committed, nothing uncommitted) and it holds no ignored files; otherwise only when the caller
 * says so (asked, or --force). Ignored files (`.env`, notes, build output) are in no commit, so
 * removing the worktree would lose them for good: they keep it, named, until --force.
 * The branch is deleted with it. Running agents' worktrees are never touched, nor one another
 * session still works in (the caller's `inUse` says which), whatever the flags.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
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
  /** Its ignored files (`ignoredFiles`), of a finished agent's worktree only. */
  ignored: string[];
}

export function worktreeState(s: SessionRow, top: string): WorktreeInfo {
  const wt = s.worktreePath;
  const branchRef = `refs/heads/${s.worktreeBranch}`;
  const hasBranch = s.worktreeBranch !== null && git(top, ['rev-parse', '--verify', '-q', branchRef]).code === 0;
  if (!wt || (!existsSync(wt) && !hasBranch)) return { session: s, state: 'removed', dirty: 0, ignored: [] };
  if (!isTerminal(s.status)) return { session: s, state: 'running', dirty: 0, ignored: [] };
  const dirty = existsSync(wt) ? gitStatus(wt).length : 0;
  const ignored = ignoredFiles(wt);
  if (dirty > 0 || !hasBranch) return { session: s, state: 'unmerged', dirty, ignored };
  const tip = git(top, ['rev-parse', branchRef]).stdout.trim();
  if (tip === s.worktreeBase) return { session: s, state: 'empty', dirty, ignored };
  return { session: s, state: isAncestor(top, tip, 'HEAD') ? 'merged' : 'unmerged', dirty, ignored };
}

export interface PruneResult {
  sessionId: string;
  state: WorktreeState;
  action: 'removed' | 'kept';
  /** Why it was kept, or what removal failed on. */
  reason?: string;
  /** Ignored files (a directory as `dir/`) that kept the worktree, or that its removal deleted. */
  ignored?: string[];
  /** Kept because another session works in it. */
  inUse?: true;
}

/** The worktree's ignored files, a wholly ignored directory as one `dir/` entry (git's own listing). */
export function ignoredFiles(wt: string): string[] {
  if (!existsSync(wt)) return [];
  // A worktree git cannot read (its git dir gone) lists nothing; removing it fails the same way.
  const r = git(wt, ['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z']);
  return r.code === 0 ? r.stdout.split('\0').filter((f) => f !== '' && !claudeScratch(wt, f)) : [];
}

/** Claude Code's staging directory for its settings writes (2.1.332: `.claude/.cc-writes/`): its, not the agent's work. */
const STAGING = '.cc-writes';

function claudeScratch(wt: string, f: string): boolean {
  if (f === `.claude/${STAGING}/`) return true;
  if (f !== '.claude/') return false;
  try {
    return readdirSync(path.join(wt, '.claude')).every((n) => n === STAGING);
  } catch {
    return false;
  }
}

/** `a, b, c and 4 more`: a list for one line. */
export function someOf(files: string[], shown = 5): string {
  const head = files.slice(0, shown).join(', ');
  return files.length > shown ? `${head} and ${files.length - shown} more` : head;
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
 * Prune these sessions' worktrees. `confirm` is asked about unmerged work and ignored files
 * (absent: kept, with the hint to use --force); `force` removes without asking, and the result
 * names the ignored files that went with it.
 */
export async function pruneWorktrees(
  sessions: SessionRow[],
  top: string,
  o: {
    force?: boolean;
    confirm?: (info: WorktreeInfo) => Promise<boolean>;
    /** Why another session keeps this worktree (it works in it), or null. */
    inUse?: (s: SessionRow) => string | null;
  } = {},
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
    const user = existsSync(s.worktreePath ?? '') ? (o.inUse?.(s) ?? null) : null;
    if (user) {
      out.push({ sessionId: s.id, state: info.state, action: 'kept', reason: user, inUse: true });
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
        ...(info.ignored.length ? { ignored: info.ignored } : {}),
      });
      continue;
    }
    const { ignored } = info;
    if (ignored.length > 0 && info.state !== 'unmerged' && !o.force && !(o.confirm && (await o.confirm(info)))) {
      out.push({
        sessionId: s.id,
        state: info.state,
        action: 'kept',
        ignored,
        reason: `it holds ignored files that are in no commit: ${someOf(ignored)} (prune ${shortId(s.id)} --force removes them with it)`,
      });
      continue;
    }
    try {
      removeAgentWorktree(s, top);
      out.push({ sessionId: s.id, state: info.state, action: 'removed', ...(ignored.length ? { ignored } : {}) });
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

/**
 * `klaude merge <id>`: bring a worktree agent's branch into the person's current branch.
 *
 * Never a half-merge: the person's tree must have no tracked changes, the merge is tried first
 * with `git merge-tree --write-tree` (git ≥ 2.38; nothing is written to the tree), and only a
 * clean result is merged for real; should `git merge` still stop (an untracked file in the way),
 * it is aborted. The agent's uncommitted work is committed on its branch first (and the caller
 * says so).
 */
import { existsSync } from 'node:fs';
import { shortId } from '../core/ids.js';
import { isTerminal } from '../core/status.js';
import type { SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { currentBranch, git, gitOk, gitStatus, gitTopLevel, hasTrackedChanges, isAncestor } from './exec.js';

export interface MergeOutcome {
  branch: string;
  /** The person's branch (null: detached HEAD). */
  into: string | null;
  /** The agent's uncommitted changes were committed on its branch first. */
  committedWork: boolean;
  /** 'merged', or 'up-to-date' when the branch had nothing the current branch lacks. */
  result: 'merged' | 'up-to-date';
  /** Files the merge brought in (relative). */
  files: string[];
}

/** `-c user.name/-c user.email` when the repository has no identity configured (commits would fail). */
function identityArgs(cwd: string): string[] {
  const has = (k: string): boolean => git(cwd, ['config', '--get', k]).stdout.trim() !== '';
  return [
    ...(has('user.name') ? [] : ['-c', 'user.name=klaude']),
    ...(has('user.email') ? [] : ['-c', 'user.email=klaude@localhost']),
  ];
}

/** Commit whatever the agent left uncommitted in its worktree; true when there was something. */
export function commitAgentWork(s: SessionRow): boolean {
  const wt = s.worktreePath;
  if (!wt || !existsSync(wt) || gitStatus(wt).length === 0) return false;
  gitOk(wt, ['add', '-A']);
  gitOk(wt, [
    ...identityArgs(wt),
    'commit',
    '-q',
    '--no-verify',
    '-m',
    `klaude: uncommitted work of agent ${shortId(s.id)} (${s.type})`,
  ]);
  return true;
}

export function requireWorktreeAgent(s: SessionRow): string {
  if (!s.worktreeBranch) {
    throw new KlaudeError(
      'E_NO_WORKTREE',
      `${s.type} ${shortId(s.id)} works in the shared tree: its changes are already there`,
      {
        hint: `klaude diff ${shortId(s.id)} shows them; start agents with --worktree to review before merging`,
      },
    );
  }
  return s.worktreeBranch;
}

export function mergeAgentBranch(s: SessionRow, cwd: string): MergeOutcome {
  const branch = requireWorktreeAgent(s);
  const who = `${s.type} ${shortId(s.id)}`;
  if (!isTerminal(s.status)) {
    throw new KlaudeError('E_SESSION_BUSY', `${who} is ${s.status}: merge it once it has finished`, {
      hint: `klaude wait ${shortId(s.id)}, or interrupt it with klaude interrupt ${shortId(s.id)}`,
    });
  }
  const top = gitTopLevel(cwd);
  if (!top) throw new KlaudeError('E_NOT_GIT_REPO', `${cwd} is not in a git repository: run klaude merge in your tree`);
  if (s.worktreePath && existsSync(s.worktreePath) && gitTopLevel(s.worktreePath) === top) {
    throw new KlaudeError('E_USAGE', `this is ${who}'s own worktree: run klaude merge from the tree to merge into`);
  }
  const ref = `refs/heads/${branch}`;
  if (git(top, ['rev-parse', '--verify', '-q', ref]).code !== 0) {
    throw new KlaudeError('E_NO_WORKTREE', `branch ${branch} of ${who} no longer exists (pruned?)`);
  }
  if (hasTrackedChanges(top) || existsSync(gitOk(top, ['rev-parse', '--git-path', 'MERGE_HEAD']).trim())) {
    throw new KlaudeError('E_DIRTY_TREE', `your tree (${top}) has uncommitted changes: nothing was merged`, {
      hint: `commit or stash them, then klaude merge ${shortId(s.id)}`,
    });
  }
  // Only touches the agent's own worktree and branch, so it is safe before the checks below.
  const committedWork = commitAgentWork(s);
  const into = currentBranch(top);
  const tip = gitOk(top, ['rev-parse', ref]).trim();
  if (isAncestor(top, tip, 'HEAD')) return { branch, into, committedWork, result: 'up-to-date', files: [] };

  const trial = git(top, ['merge-tree', '--write-tree', '--name-only', '--no-messages', 'HEAD', ref]);
  const committedNote = committedWork ? ` (its uncommitted work was committed on ${branch})` : '';
  if (trial.code !== 0) {
    const conflicted = trial.stdout.split('\n').slice(1).filter(Boolean);
    if (trial.code === 1 && conflicted.length) {
      throw new KlaudeError(
        'E_MERGE_CONFLICT',
        `merging ${branch} into ${into ?? 'HEAD'} would conflict in ${conflicted.slice(0, 5).join(', ')}${conflicted.length > 5 ? ` and ${conflicted.length - 5} more` : ''}: your tree was not changed${committedNote}`,
        {
          hint: `merge by hand (git merge ${branch}) or ask the agent to rebase: klaude message ${shortId(s.id)} "rebase on ${into ?? 'HEAD'}"`,
        },
      );
    }
    throw new KlaudeError(
      'E_GIT',
      `git merge-tree failed: ${trial.stderr.trim().split('\n')[0] ?? `exit ${trial.code}`}`,
      { hint: 'klaude merge needs git 2.38 or newer' },
    );
  }
  const files = gitOk(top, ['diff', '--name-only', '-z', 'HEAD', ref]).split('\0').filter(Boolean);
  const merged = git(top, [
    ...identityArgs(top),
    'merge',
    '-q',
    '--no-edit',
    '--no-verify',
    '-m',
    `Merge ${branch} (klaude agent ${shortId(s.id)}, ${s.type})`,
    ref,
  ]);
  if (merged.code !== 0) {
    if (existsSync(gitOk(top, ['rev-parse', '--git-path', 'MERGE_HEAD']).trim())) git(top, ['merge', '--abort']);
    const why = (merged.stderr || merged.stdout).trim().split('\n')[0] ?? `exit ${merged.code}`;
    throw new KlaudeError('E_GIT', `git merge ${branch} failed: ${why}; your tree was not changed${committedNote}`, {
      hint: 'move the files git names out of the way, then merge again',
    });
  }
  return { branch, into, committedWork, result: 'merged', files };
}

/** Command specs for reviewing agents' work: diff, merge, worktree (kept apart so registry.ts stays small). */
import { JSON_FLAG } from './flag-specs.js';
import type { CommandSpec } from './types.js';

export const REVIEW_COMMANDS: CommandSpec[] = [
  {
    name: 'diff',
    summary: 'show what an agent changed: its worktree branch, or the files it touched in the shared tree',
    usage: 'klaude diff <id> [--stat] [--json]',
    description: [
      'A --worktree agent: its branch against the commit it started from, uncommitted and untracked',
      'files of its worktree included (exact).',
      'An agent in the shared tree: the current changes (against HEAD) of the files it created or',
      'edited during its runs (from git status before/after each run and its Edit/Write calls).',
      'That is approximate: your own edits to those files show too.',
      'The patch goes to stdout (coloured on a terminal), what it is a diff of to stderr.',
    ].join('\n'),
    flags: {
      stat: { type: 'boolean', description: 'only the changed files with added/deleted line counts' },
      json: {
        ...JSON_FLAG,
        description: 'print {kind, approximate, base, branch, files:[{path,status,added,deleted}], patch}',
      },
    },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude diff 7XQ2', 'klaude diff 7XQ2 --stat', 'klaude diff 7XQ2 | git apply'],
    operands: ['session'],
    load: () => import('./diff.js'),
  },
  {
    name: 'merge',
    summary: "merge a --worktree agent's branch into your current branch",
    usage: 'klaude merge <id> [--json]',
    description: [
      'Commits what the agent left uncommitted in its worktree on its branch first (and says so), then',
      'merges the branch into the branch checked out where you run it. Refuses, changing nothing, when your',
      'tree has uncommitted changes (E_DIRTY_TREE) or the merge would conflict (E_MERGE_CONFLICT: checked',
      'first with git merge-tree, so there is never a half-merge to clean up). Needs git 2.38 or newer.',
      'Afterwards `klaude worktree prune` removes the worktree.',
    ].join('\n'),
    flags: { json: JSON_FLAG },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude merge 7XQ2'],
    operands: ['session'],
    load: () => import('./merge.js'),
  },
  {
    name: 'worktree',
    summary: 'list the worktrees of --worktree agents, or prune those of finished agents',
    usage: 'klaude worktree list|prune [id…] [--force] [--json]',
    description: [
      'list: each agent worktree with its state: merged (its branch is in your HEAD), empty (no work),',
      'unmerged, running.',
      'prune: removes the worktree and branch of every finished agent (or of the named ones) that is',
      'merged or empty. Unmerged work is asked about on a terminal; otherwise it is kept (exit 1) unless',
      '--force. So are ignored files (.env, notes, build output: in no commit, so lost with the',
      'worktree): a worktree holding any is kept and they are named; --force removes it anyway and',
      'says which ignored files went with it. Running agents are never touched. Archiving a session',
      'in the dashboard prunes its merged and empty worktrees that hold no ignored files too.',
    ].join('\n'),
    flags: {
      force: {
        type: 'boolean',
        description: 'prune: also remove worktrees with unmerged work or ignored files, without asking',
      },
      json: JSON_FLAG,
    },
    minArgs: 1,
    examples: ['klaude worktree list', 'klaude worktree prune', 'klaude worktree prune 7XQ2 --force'],
    operands: [['list', 'prune'], 'session'],
    load: () => import('./worktree.js'),
  },
];

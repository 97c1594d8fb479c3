/**
 * `--worktree` agents: each gets a git worktree of its own on a new branch from the current HEAD,
 * so agents never edit the person's tree (or each other's).
 *
 * Naming (documented in `klaude start --help`):
 *   branch     klaude/<shortid>-<type>         e.g. klaude/8hj2kd0p-reviewer
 *   directory  <KLAUDE_HOME>/projects/<project-hash>/worktrees/<shortid>
 * The directory is outside the person's tree (nothing to git-ignore). The worktree's git dir gets a
 * `klaude-project` file naming the project root, so klaude commands run inside the worktree (the
 * agent's own `klaude start`, a checkout) count as the same project (config/paths.ts projectRoot).
 */
import { chmodSync, cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { shortId } from '../core/ids.js';
import { projectDir, WORKTREE_OWNER_FILE } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { git, gitOk, gitTopLevel, headCommit } from './exec.js';

export interface AgentWorktree {
  /** The worktree's top level. */
  path: string;
  branch: string;
  /** The commit the branch was made from. */
  base: string;
  /** Where the agent works: the worktree, or the same sub-directory of it the person was in. */
  cwd: string;
}

/** `klaude/<shortid>-<type>`, the type made safe for a ref name. */
export function worktreeBranchName(sessionId: string, type: string): string {
  const safe =
    type
      .replace(/\.{2,}/g, '.')
      .replace(/[^\w.-]/g, '-')
      .replace(/^[.-]+|[.]+$|\.lock$/g, '') || 'agent';
  return `klaude/${shortId(sessionId).toLowerCase()}-${safe}`;
}

export function agentWorktreeDir(home: string, projectHash: string, sessionId: string): string {
  return path.join(projectDir(home, projectHash), 'worktrees', shortId(sessionId).toLowerCase());
}

/** The repository `cwd` is in and its HEAD commit; one-line errors when there is none. */
export function worktreeSource(cwd: string): { top: string; head: string } {
  const top = gitTopLevel(cwd);
  if (!top) {
    throw new KlaudeError('E_NOT_GIT_REPO', `--worktree needs a git repository, and ${cwd} is not in one`, {
      hint: 'run `git init` and commit once, or start the agent without --worktree',
    });
  }
  const head = headCommit(top);
  if (!head) {
    throw new KlaudeError('E_NOT_GIT_REPO', `--worktree needs a commit to branch from, and ${top} has none yet`, {
      hint: 'commit once, or start the agent without --worktree',
    });
  }
  return { top, head };
}

/** Create the agent's worktree and branch from `head`. */
export function createAgentWorktree(o: {
  home: string;
  projectHash: string;
  sessionId: string;
  type: string;
  /** From worktreeSource. */
  top: string;
  head: string;
  /** The directory the agent was started from (kept as the same sub-directory of the worktree). */
  cwd: string;
  /** The sub-directory to work in, given outright (a fork: its origin's, inside the origin's worktree). */
  sub?: string;
}): AgentWorktree {
  const dir = agentWorktreeDir(o.home, o.projectHash, o.sessionId);
  const branch = worktreeBranchName(o.sessionId, o.type);
  addOwnedWorktree(o.top, dir, ['-b', branch, dir, o.head]);
  const rel = o.sub ?? path.relative(o.top, o.cwd);
  return { path: dir, branch, base: o.head, cwd: workDir(dir, rel) };
}

/** `git worktree add <args>` into `dir` (under a 0700 parent), marked as the project's (config/paths.ts). */
function addOwnedWorktree(top: string, dir: string, args: string[]): void {
  mkdirSync(path.dirname(dir), { recursive: true, mode: 0o700 });
  chmodSync(path.dirname(dir), 0o700);
  gitOk(top, ['worktree', 'add', '-q', ...args]);
  const gitDir = gitOk(dir, ['rev-parse', '--absolute-git-dir']).trim();
  writeFileSync(path.join(gitDir, WORKTREE_OWNER_FILE), `${top}\n`, { mode: 0o600 });
}

/** The same sub-directory of the worktree `dir` (made), or its top when `rel` leads out of it. */
function workDir(dir: string, rel: string): string {
  const cwd = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? path.join(dir, rel) : dir;
  mkdirSync(cwd, { recursive: true });
  return cwd;
}

/**
 * The agent's worktree on its branch as it is (a zone's agent brought here by `klaude checkout`: its
 * branch fetched from over there); kept when it is there already (a checkout asked again).
 */
export function agentWorktreeOnBranch(o: {
  home: string;
  projectHash: string;
  sessionId: string;
  top: string;
  branch: string;
  /** Where it worked, relative to its worktree. */
  sub: string;
}): { path: string; cwd: string } {
  const dir = agentWorktreeDir(o.home, o.projectHash, o.sessionId);
  if (!existsSync(dir)) addOwnedWorktree(o.top, dir, [dir, o.branch]);
  return { path: dir, cwd: workDir(dir, o.sub) };
}

/**
 * A worktree agent resumed, checked out or talked to after its worktree was pruned has nowhere to
 * work (opening it elsewhere would run its conversation in the wrong tree): say so. `cwd` is the
 * directory it was started in (inside the worktree), the worktree itself when unknown.
 */
export function assertWorktreeThere(worktreePath: string | null, cwd: string | null | undefined, id?: string): void {
  if (worktreePath && !existsSync(cwd ?? worktreePath)) {
    const logs = id ? `\`klaude logs ${shortId(id)}\`` : '`klaude logs <id>`';
    throw new KlaudeError(
      'E_NO_WORKTREE',
      `the agent's worktree ${worktreePath} was removed (klaude worktree prune): it has nowhere to work`,
      {
        hint: `${logs} still shows what it did; start a new agent (\`klaude start <type> --worktree "…"\`) for more work`,
      },
    );
  }
}

/**
 * Carry `from`'s uncommitted work into `to`, a fresh worktree at the same commit: tracked changes
 * (staged or not, deletions included) through a stash commit that touches neither tree (the two
 * worktrees share one object store), then untracked files that are not ignored, copied as they are.
 * Ignored files (dependencies, build output, `.env`) are not carried. The number of paths carried.
 */
export function carryUncommitted(from: string, to: string): number {
  // The stash commit is never on a ref: an identity is needed to make it, not to keep it.
  const id = ['-c', 'user.name=klaude', '-c', 'user.email=klaude@localhost'];
  const stash = gitOk(from, [...id, 'stash', 'create']).trim();
  let tracked = 0;
  if (stash) {
    if (git(to, ['stash', 'apply', '--index', '-q', stash]).code !== 0) gitOk(to, ['stash', 'apply', '-q', stash]);
    tracked = gitOk(to, ['diff', '--name-only', '-z', 'HEAD']).split('\0').filter(Boolean).length;
  }
  const untracked = gitOk(from, ['ls-files', '--others', '--exclude-standard', '-z']).split('\0').filter(Boolean);
  for (const f of untracked) {
    mkdirSync(path.dirname(path.join(to, f)), { recursive: true });
    cpSync(path.join(from, f), path.join(to, f), { verbatimSymlinks: true, preserveTimestamps: true });
  }
  return tracked + untracked.length;
}

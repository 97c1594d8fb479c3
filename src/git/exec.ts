/**
 * Running git. Every call is synchronous and short (status, rev-parse, diff, worktree add/remove):
 * the callers are commands and the runtime between turns, never a hook or a render path.
 */
import { spawnSync } from 'node:child_process';
import { KlaudeError } from '../lib/errors.js';

export interface GitResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** 64 MiB: a diff of a large generated tree must not kill the caller. */
const MAX_BUFFER = 64 * 1024 * 1024;

export function git(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): GitResult {
  const r = spawnSync('git', args, {
    cwd,
    encoding: 'utf8',
    maxBuffer: MAX_BUFFER,
    input: opts.input,
    // No pager, no prompts, no locale surprises in messages we match.
    env: { ...(opts.env ?? process.env), GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' },
  });
  if (r.error) {
    throw new KlaudeError('E_GIT', `cannot run git: ${r.error.message}`, { hint: 'install git and put it on PATH' });
  }
  return { code: r.status ?? 1, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Like git(), but a non-zero exit is an E_GIT error carrying git's first stderr line. */
export function gitOk(cwd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; input?: string } = {}): string {
  const r = git(cwd, args, opts);
  if (r.code !== 0) {
    const why =
      r.stderr
        .trim()
        .split('\n')
        .find((l) => l.trim() !== '') ?? `exit ${r.code}`;
    throw new KlaudeError('E_GIT', `git ${args[0]} failed: ${why}`);
  }
  return r.stdout;
}

/** The top level of the work tree containing `cwd`, or null outside a git repository. */
export function gitTopLevel(cwd: string): string | null {
  try {
    const r = git(cwd, ['rev-parse', '--show-toplevel']);
    return r.code === 0 ? r.stdout.trim() || null : null;
  } catch {
    return null;
  }
}

/** The commit HEAD points to, or null (no commits yet). */
export function headCommit(cwd: string): string | null {
  const r = git(cwd, ['rev-parse', '--verify', '-q', 'HEAD^{commit}']);
  return r.code === 0 ? r.stdout.trim() : null;
}

/** The current branch name, or null when HEAD is detached. */
export function currentBranch(cwd: string): string | null {
  const r = git(cwd, ['symbolic-ref', '-q', '--short', 'HEAD']);
  return r.code === 0 ? r.stdout.trim() : null;
}

export interface StatusEntry {
  /** Path relative to the top level. */
  path: string;
  /** The two porcelain status letters, e.g. ' M', '??', 'A ', 'D '. */
  xy: string;
}

/** `git status` of the work tree, untracked files listed one by one (not as directories). */
export function gitStatus(cwd: string): StatusEntry[] {
  const out = gitOk(cwd, ['status', '--porcelain=v1', '-z', '--untracked-files=all']);
  const parts = out.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.length < 4) continue;
    const xy = p.slice(0, 2);
    entries.push({ xy, path: p.slice(3) });
    // A rename or copy is followed by its source path.
    if (xy[0] === 'R' || xy[0] === 'C') i++;
  }
  return entries;
}

/** Tracked changes (staged or not) in the work tree; untracked files are not counted. */
export function hasTrackedChanges(cwd: string): boolean {
  return gitStatus(cwd).some((e) => e.xy !== '??');
}

/** Whether `commit` is reachable from `ref` (merged into it). */
export function isAncestor(cwd: string, commit: string, ref: string): boolean {
  return git(cwd, ['merge-base', '--is-ancestor', commit, ref]).code === 0;
}

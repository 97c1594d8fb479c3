/**
 * What an agent changed in its working tree, from git rather than from its tool calls (a file
 * written by `touch`, `sed -i` or a generator through Bash counts too).
 *
 * - Shared tree: a snapshot of `git status` (with each dirty file's size and mtime) before a run,
 *   compared with the one after it. Files that were already dirty count when they changed again.
 * - Worktree: the branch against its base, uncommitted and untracked files included (a scratch
 *   copy of the worktree's index gets `git add -A`, so the agent's real index is never touched).
 *
 * Claude Code's own settings files are left out of both: claude rewrites them itself. An agent's
 * Edit or Write of one still counts, from its tool calls (the run's summary joins both). So are the
 * placeholders Claude Code's sandbox holds while a sandboxed command runs (an untracked empty file
 * no one may write, at a protected path that did not exist: docs/claude-versions.md): another
 * agent's command, not this agent's work.
 */
import { copyFileSync, existsSync, lstatSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isClaudeSettingsFile } from '../claude/local-settings.js';
import { git, gitOk, gitStatus, gitTopLevel } from './exec.js';

export interface FileChanges {
  /** Absolute paths. */
  created: string[];
  edited: string[];
}

export interface TreeSnapshot {
  top: string;
  /** Dirty files (relative) → status letters + size + mtime. */
  files: Map<string, string>;
}

function fingerprint(top: string, rel: string, xy: string): string {
  try {
    const st = statSync(path.join(top, rel));
    return `${xy}:${st.size}:${st.mtimeMs}`;
  } catch {
    return `${xy}:gone`;
  }
}

/** The dirty files of the tree `cwd` is in; null outside a git repository (or when git fails). */
export function snapshotTree(cwd: string): TreeSnapshot | null {
  try {
    const top = gitTopLevel(cwd);
    if (!top) return null;
    const files = new Map<string, string>();
    for (const e of gitStatus(top)) {
      if (isClaudeSettingsFile(e.path) || (e.xy === '??' && isSandboxPlaceholder(top, e.path))) continue;
      files.set(e.path, fingerprint(top, e.path, e.xy));
    }
    return { top, files };
  } catch {
    return null;
  }
}

/** An empty regular file with no write permission for anyone: what the sandbox mounts over. */
export function isSandboxPlaceholder(top: string, rel: string): boolean {
  try {
    const st = lstatSync(path.join(top, rel));
    return st.isFile() && st.size === 0 && (st.mode & 0o222) === 0;
  } catch {
    return false;
  }
}

/** Files created and edited between `before` and now. */
export function changesSince(before: TreeSnapshot): FileChanges | null {
  const after = snapshotTree(before.top);
  if (!after) return null;
  const created: string[] = [];
  const edited: string[] = [];
  for (const [rel, fp] of after.files) {
    const was = before.files.get(rel);
    if (was === fp) continue;
    const xy = fp.slice(0, 2);
    const isNew = was === undefined && (xy === '??' || xy[0] === 'A');
    (isNew ? created : edited).push(path.join(before.top, rel));
  }
  // Dirty before, clean now: changed back, or committed by the agent. An untracked file that is
  // still the same file only became ignored (claude adds ignore rules of its own to the person's
  // global git excludes file): not a change.
  for (const [rel, fp] of before.files) {
    if (after.files.has(rel)) continue;
    if (fp.startsWith('??') && fingerprint(before.top, rel, '??') === fp) continue;
    edited.push(path.join(before.top, rel));
  }
  return { created, edited };
}

/**
 * Call `fn` with a `git diff --cached <base> …` runner for a tree with everything in it (or in
 * `paths`) staged, in a scratch index: a copy of the real one, so unchanged files are not hashed
 * again and the real index is never touched.
 */
export function withAllStaged<T>(
  top: string,
  base: string,
  fn: (diff: (args: string[]) => string) => T,
  paths?: string[],
): T {
  const scratch = mkdtempSync(path.join(tmpdir(), 'klaude-index-'));
  try {
    const index = path.join(scratch, 'index');
    const real = path.resolve(top, gitOk(top, ['rev-parse', '--git-path', 'index']).trim());
    if (existsSync(real)) copyFileSync(real, index);
    const env = { ...process.env, GIT_INDEX_FILE: index };
    const spec = paths ? ['--', ...paths] : [];
    if (!paths || paths.length > 0) gitOk(top, ['add', '-A', ...spec], { env });
    return fn((args) =>
      gitOk(top, ['diff', '--cached', '--no-color', '--no-ext-diff', '--no-renames', base, ...args, ...spec], { env }),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** `git diff --name-status -z` output → created (A) and other changed paths, relative. */
export function parseNameStatus(out: string): { created: string[]; edited: string[]; status: Map<string, string> } {
  const parts = out.split('\0');
  const created: string[] = [];
  const edited: string[] = [];
  const status = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length; i += 2) {
    const [st, rel] = [parts[i]!, parts[i + 1]!];
    if (!rel) continue;
    status.set(rel, st);
    (st === 'A' ? created : edited).push(rel);
  }
  return { created, edited, status };
}

/** A worktree agent's files: its branch and uncommitted work against its base. */
export function worktreeChanges(worktree: string, base: string): FileChanges | null {
  try {
    const r = parseNameStatus(withAllStaged(worktree, base, (diff) => diff(['--name-status', '-z'])));
    const own = (f: string) => !isClaudeSettingsFile(f);
    return {
      created: r.created.filter((f) => own(f) && !isSandboxPlaceholder(worktree, f)).map((f) => path.join(worktree, f)),
      edited: r.edited.filter(own).map((f) => path.join(worktree, f)),
    };
  } catch {
    return null;
  }
}

/** Of these relative paths, the ones git can stage now (present, or tracked and deleted). */
export function stageablePaths(top: string, rels: string[]): string[] {
  if (rels.length === 0) return [];
  const tracked = new Set(
    git(top, ['ls-files', '-z', '--', ...rels])
      .stdout.split('\0')
      .filter(Boolean),
  );
  return rels.filter((r) => tracked.has(r) || existsSync(path.join(top, r)));
}

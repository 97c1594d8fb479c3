/**
 * `klaude diff` and the dashboard's diff view: what an agent changed.
 * - A worktree agent: its branch against the commit it started from, with the uncommitted and
 *   untracked files of its worktree (exact).
 * - An agent in the shared tree: the current changes (against HEAD) of the files it touched
 *   during its runs (git status before/after each run, and its Edit/Write calls). Approximate: the
 *   person's own edits to those files show too, and files it changed and someone committed since
 *   do not.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { shortId } from '../core/ids.js';
import type { SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { git, gitOk, gitTopLevel, headCommit } from './exec.js';
import { readAllEvents } from '../logs/reader.js';
import { collectCompletionInfo } from '../logs/summary.js';
import { parseNameStatus, stageablePaths, withAllStaged } from './changes.js';
import { launchMetadata } from '../agent-types/launch-settings.js';

/** git's empty tree: the base for a repository without commits. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export interface DiffFile {
  /** Relative to the diffed tree's top level. */
  path: string;
  status: 'added' | 'modified' | 'deleted';
  /** Lines added / deleted; null for a binary file. */
  added: number | null;
  deleted: number | null;
}

export interface SessionDiff {
  sessionId: string;
  kind: 'worktree' | 'shared';
  approximate: boolean;
  /** The tree the diff was taken in (the worktree, or the shared tree's top level). */
  top: string;
  /** What the changes are against: the worktree's base commit, or HEAD. */
  base: string;
  branch: string | null;
  files: DiffFile[];
  /** The unified diff (empty when only the file list was asked for). */
  patch: string;
  /** Something to say about how the diff was taken (approximate, worktree gone, …). */
  note: string | null;
}

const STATUS: Record<string, DiffFile['status']> = { A: 'added', D: 'deleted' };

function filesOf(nameStatus: string, numstat: string): DiffFile[] {
  const counts = new Map<string, [number | null, number | null]>();
  for (const rec of numstat.split('\0')) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(rec.replace(/^\n/, ''));
    if (m) counts.set(m[3]!, [m[1] === '-' ? null : Number(m[1]), m[2] === '-' ? null : Number(m[2])]);
  }
  const ns = parseNameStatus(nameStatus);
  return [...ns.status].map(([p, st]) => {
    const [added, deleted] = counts.get(p) ?? [null, null];
    return { path: p, status: STATUS[st] ?? 'modified', added, deleted };
  });
}

function run(top: string, base: string, patch: boolean, paths?: string[]): { files: DiffFile[]; patch: string } {
  return withAllStaged(
    top,
    base,
    (diff) => ({
      files: filesOf(diff(['--name-status', '-z']), diff(['--numstat', '-z'])),
      patch: patch ? diff(['--patch']) : '',
    }),
    paths,
  );
}

/** Files an agent in the shared tree touched, relative to `top` (inside it only). */
async function touchedFiles(logPath: string | null, top: string): Promise<string[]> {
  if (!logPath || !existsSync(logPath)) return [];
  const info = collectCompletionInfo(await readAllEvents(logPath));
  const rels = new Set<string>();
  for (const f of [...info.filesCreated, ...info.filesEdited]) {
    const rel = path.relative(top, path.resolve(top, f));
    if (rel && !rel.startsWith('..') && !path.isAbsolute(rel)) rels.add(rel);
  }
  return [...rels];
}

export async function sessionDiff(
  s: SessionRow,
  o: { projectRoot: string; logPath: string | null; patch: boolean },
): Promise<SessionDiff> {
  const who = `${s.type} ${shortId(s.id)}`;
  if (s.worktreeBranch && s.worktreeBase) {
    const wt = s.worktreePath;
    if (wt && existsSync(wt)) {
      const r = run(wt, s.worktreeBase, o.patch);
      return {
        sessionId: s.id,
        kind: 'worktree',
        approximate: false,
        top: wt,
        base: s.worktreeBase,
        branch: s.worktreeBranch,
        ...r,
        note: null,
      };
    }
    // The worktree was removed: its branch (committed work) may still be there.
    const repo = gitTopLevel(o.projectRoot);
    if (!repo || git(repo, ['rev-parse', '--verify', '-q', `refs/heads/${s.worktreeBranch}`]).code !== 0) {
      throw new KlaudeError(
        'E_NO_WORKTREE',
        `${who}'s worktree and branch ${s.worktreeBranch} were removed: there is no diff to show`,
      );
    }
    const range = [`${s.worktreeBase}..refs/heads/${s.worktreeBranch}`];
    const files = filesOf(
      gitOk(repo, ['diff', '--no-renames', '--name-status', '-z', ...range]),
      gitOk(repo, ['diff', '--no-renames', '--numstat', '-z', ...range]),
    );
    const patch = o.patch ? gitOk(repo, ['diff', '--no-color', '--no-ext-diff', '--no-renames', ...range]) : '';
    return {
      sessionId: s.id,
      kind: 'worktree',
      approximate: false,
      top: repo,
      base: s.worktreeBase,
      branch: s.worktreeBranch,
      files,
      patch,
      note: 'its worktree was removed: committed work on its branch only',
    };
  }
  const cwd = launchMetadata(s)?.cwd ?? o.projectRoot;
  const top = gitTopLevel(existsSync(cwd) ? cwd : o.projectRoot);
  if (!top)
    throw new KlaudeError(
      'E_NOT_GIT_REPO',
      `${who} works in ${cwd}, which is not in a git repository: klaude diff needs git`,
    );
  const base = headCommit(top) ?? EMPTY_TREE;
  const paths = stageablePaths(top, await touchedFiles(o.logPath, top));
  const r = paths.length ? run(top, base, o.patch, paths) : { files: [], patch: '' };
  return {
    sessionId: s.id,
    kind: 'shared',
    approximate: true,
    top,
    base: 'HEAD',
    branch: null,
    ...r,
    note: 'approximate: the agent works in the shared tree; these are the current changes to the files it touched (your own edits to them show too)',
  };
}

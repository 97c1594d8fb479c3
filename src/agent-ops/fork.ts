/**
 * `klaude fork`: a new agent on a fork of a session's Claude conversation (claude `--resume <it>
 * --fork-session`, with the new id chosen up front). The fork sits beside its origin (the origin's
 * parent, its project) and records `forked_from`. Its first run forks the origin (runtime/cli-launch.ts
 * reads `forkOf` from its metadata); later runs resume the fork itself. Only claude conversations
 * can be forked.
 *
 * Where it works: an origin in the shared tree is forked in its own directory. An origin with a
 * worktree (`--worktree`) is forked into a worktree of the fork's own, owned by the fork like any
 * worktree agent's (diff, merge, prune; archiving or pruning the origin leaves it alone): a new
 * branch at the commit the origin's worktree is on, with the origin's uncommitted changes carried
 * over (tracked and untracked, not ignored files), since the conversation the fork continues made
 * them; its diff counts from the origin's base, so it shows all the work of that conversation.
 * claude finds a conversation by its directory, so the origin's transcript is copied under the
 * fork's directory for the first run, and removed once the fork's own exists (`dropForkCopy`).
 */
import { chmodSync, copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { launchMetadata } from '../agent-types/launch-settings.js';
import { claudeTranscriptPath } from '../claude/transcript.js';
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { getInstance } from '../db/repos/instances.js';
import { getProject } from '../db/repos/projects.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import type { StartRequest } from '../control/protocol.js';
import { git, gitTopLevel, headCommit } from '../git/exec.js';
import { carryUncommitted, type AgentWorktree } from '../git/worktree.js';
import { KlaudeError } from '../lib/errors.js';
import type { AgentServices } from './context.js';

/** What the fork's first turn says when the person gave no prompt. */
export const FORK_DEFAULT_PROMPT = 'Continue from here.';

/** Where the origin's conversation lives: its project's root and the directory claude ran in. */
export function forkPlace(db: Db, origin: SessionRow): { projectRoot: string; cwd: string } {
  const root = getProject(db, origin.projectId)?.rootPath;
  if (!root) throw new KlaudeError('E_SESSION_NOT_FOUND', `the project of ${shortId(origin.id)} is not recorded`);
  // A worktree agent's fork gets a worktree of its own (startAgents): it starts from the project.
  if (origin.worktreePath) return { projectRoot: root, cwd: root };
  // An agent's directory is in its launch metadata; an interactive session's is its supervisor's.
  const supervisor = origin.instanceId ? getInstance(db, origin.instanceId)?.cwd : undefined;
  return { projectRoot: root, cwd: launchMetadata(origin)?.cwd ?? supervisor ?? root };
}

/** Where a fork of a worktree agent branches from. */
export interface ForkTree {
  origin: SessionRow;
  /** The project's repository, and the commit the fork's branch starts at. */
  top: string;
  head: string;
  /** What the fork's diff counts from: the origin's base. */
  base: string;
  /** The origin's directory inside its worktree, as a relative path. */
  sub: string;
}

const cwdOf = (s: SessionRow): string | null => {
  const cwd = (s.metadata as { cwd?: unknown } | null)?.cwd;
  return typeof cwd === 'string' ? cwd : null;
};

/** The fork's worktree source when its origin has a worktree; null for any other start. */
export function forkTree(svc: AgentServices, req: StartRequest): ForkTree | null {
  const origin = req.forkOf ? getSession(svc.db, req.forkOf.sessionId) : undefined;
  if (!origin?.worktreePath || !origin.worktreeBranch) return null;
  const top = gitTopLevel(svc.projectRoot);
  // The commit the origin works on: its worktree's HEAD, or its branch once the directory is gone.
  const branch = git(svc.projectRoot, ['rev-parse', '--verify', '-q', `refs/heads/${origin.worktreeBranch}^{commit}`]);
  const head = existsSync(origin.worktreePath)
    ? headCommit(origin.worktreePath)
    : branch.code === 0
      ? branch.stdout.trim()
      : null;
  if (!top || !head) {
    throw new KlaudeError(
      'E_NO_WORKTREE',
      `${shortId(origin.id)}'s worktree and branch were removed: there is no tree to fork it into`,
      { hint: `\`klaude logs ${shortId(origin.id)}\` still shows what it did; start a new agent for more work` },
    );
  }
  const rel = path.relative(origin.worktreePath, cwdOf(origin) ?? origin.worktreePath);
  const sub = rel.startsWith('..') || path.isAbsolute(rel) ? '' : rel;
  return { origin, top, head, base: origin.worktreeBase ?? head, sub };
}

/**
 * The fork's new worktree made ready: the origin's uncommitted work carried over, and the origin's
 * transcript where claude run in the fork's directory looks for it. What the fork's metadata keeps.
 */
export function furnishFork(
  svc: AgentServices,
  ft: ForkTree,
  wt: AgentWorktree,
): { carried: number; forkTranscriptCopy: string | null; forkOfWorktree: string } {
  const { origin } = ft;
  const carried = existsSync(origin.worktreePath!) ? carryUncommitted(origin.worktreePath!, wt.path) : 0;
  const id = origin.nativeSessionId!;
  const from = origin.transcriptPath ?? claudeTranscriptPath(cwdOf(origin) ?? origin.worktreePath!, id, svc.env);
  const to = claudeTranscriptPath(wt.cwd, id, svc.env);
  let copy: string | null = null;
  if (existsSync(from) && path.resolve(from) !== path.resolve(to)) {
    mkdirSync(path.dirname(to), { recursive: true, mode: 0o700 });
    copyFileSync(from, to);
    chmodSync(to, 0o600);
    copy = to;
  }
  return { carried, forkTranscriptCopy: copy, forkOfWorktree: origin.worktreePath! };
}

/**
 * After a fork's run: the copy of its origin's transcript (furnishFork) goes once the fork has a
 * transcript of its own, so the fork's directory holds only the fork's conversation.
 */
export function dropForkCopy(session: SessionRow, cwd: string, env: NodeJS.ProcessEnv): void {
  const copy = (session.metadata as { forkTranscriptCopy?: unknown } | null)?.forkTranscriptCopy;
  const own = session.nativeSessionId;
  if (typeof copy !== 'string' || !own || !existsSync(claudeTranscriptPath(cwd, own, env))) return;
  rmSync(copy, { force: true });
}

/** The start request of a fork of `origin`; E_FORK_UNSUPPORTED for a session that has no claude conversation. */
export function forkRequest(origin: SessionRow, prompt: string | undefined, cwd: string): StartRequest {
  if (origin.runtime !== 'claude') {
    throw new KlaudeError(
      'E_FORK_UNSUPPORTED',
      `${shortId(origin.id)} runs on ${origin.runtime}: only claude conversations can be forked`,
      { hint: `start a new agent instead: klaude start ${origin.type} "<prompt>"` },
    );
  }
  if (!origin.nativeSessionId) {
    throw new KlaudeError('E_FORK_UNSUPPORTED', `${shortId(origin.id)} has no Claude conversation yet`, {
      hint: 'fork it once it has run a turn',
    });
  }
  return {
    type: origin.type === 'tui' ? 'general' : origin.type,
    prompt: prompt?.trim() ? prompt : FORK_DEFAULT_PROMPT,
    runtime: 'claude',
    ...(origin.model ? { model: origin.model } : {}),
    parentId: origin.parentId,
    cwd,
    forkOf: { sessionId: origin.id, claudeSessionId: origin.nativeSessionId },
  };
}

/**
 * `klaude fork`: a new agent on a fork of a session's Claude conversation (claude `--resume <it>
 * --fork-session`, with the new id chosen up front). The fork sits beside its origin (the origin's
 * parent, its project, its working directory: claude finds a conversation by the directory) and
 * records `forked_from`. Its first run forks the origin (runtime/cli-launch.ts reads `forkOf` from
 * its metadata); later runs resume the fork itself. Only claude conversations can be forked.
 */
import { launchMetadata } from '../agent-types/launch-settings.js';
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { getInstance } from '../db/repos/instances.js';
import { getProject } from '../db/repos/projects.js';
import type { SessionRow } from '../db/repos/sessions.js';
import type { StartRequest } from '../control/protocol.js';
import { KlaudeError } from '../lib/errors.js';

/** What the fork's first turn says when the person gave no prompt. */
export const FORK_DEFAULT_PROMPT = 'Continue from here.';

/** Where the origin's conversation lives: its project's root and the directory claude ran in. */
export function forkPlace(db: Db, origin: SessionRow): { projectRoot: string; cwd: string } {
  const root = getProject(db, origin.projectId)?.rootPath;
  if (!root) throw new KlaudeError('E_SESSION_NOT_FOUND', `the project of ${shortId(origin.id)} is not recorded`);
  // An agent's directory is in its launch metadata; an interactive session's is its supervisor's.
  const supervisor = origin.instanceId ? getInstance(db, origin.instanceId)?.cwd : undefined;
  return { projectRoot: root, cwd: launchMetadata(origin)?.cwd ?? supervisor ?? root };
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

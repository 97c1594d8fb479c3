/**
 * The dashboard's review actions: an agent's diff for the diff view (c), and removing the
 * merged or empty worktrees of agents when they are archived (unmerged work is kept and named).
 */
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { getSession, type SessionRow } from '../db/repos/sessions.js';
import { sessionLogPath } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { gitTopLevel } from '../git/exec.js';
import { sessionDiff } from '../git/session-diff.js';
import { agentDiff as zoneDiff, type ZoneReach } from '../zones/review.js';
import { pruneWorktrees } from '../git/prune.js';
import type { AgentDiff } from '../ui/deps.js';

export interface ReviewDeps {
  db: Db;
  home: string;
  projectRoot: string;
  logsDir: string | null;
  /** What reaching a zone takes, for a zone's agent (its diff is taken over there: zones/review.ts). */
  zones?: ZoneReach;
}

export async function agentDiff(d: ReviewDeps, sessionId: string): Promise<AgentDiff> {
  const s = getSession(d.db, sessionId);
  if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `no session ${shortId(sessionId)}`);
  const o = {
    projectRoot: d.projectRoot,
    logPath: s.logPath ?? sessionLogPath(d.home, s.projectId, s.id, d.logsDir),
    patch: true,
  };
  const r = d.zones ? await zoneDiff(d.zones, s, o) : await sessionDiff(s, o);
  const heading =
    r.kind === 'worktree'
      ? `branch ${r.branch} against ${r.base.slice(0, 10)}, uncommitted work included${r.note ? ` (${r.note})` : ''} · klaude merge ${shortId(s.id)} brings it in`
      : (r.note ?? 'shared tree');
  return { heading, patch: r.patch, files: r.files.length };
}

/** After archiving: remove the worktrees that hold nothing unmerged; say which were kept. */
export async function pruneArchived(d: ReviewDeps, rows: SessionRow[]): Promise<string | undefined> {
  const withTrees = rows.filter((s) => s.worktreeBranch);
  const top = withTrees.length ? gitTopLevel(d.projectRoot) : null;
  if (!top) return undefined;
  const kept = (await pruneWorktrees(withTrees, top)).filter(
    (r) => r.action === 'kept' && (r.state === 'unmerged' || r.ignored),
  );
  if (kept.length === 0) return undefined;
  const ids = kept.map((r) => shortId(r.sessionId)).join(', ');
  return `kept the worktree${kept.length === 1 ? '' : 's'} of ${ids} (unmerged work or ignored files: klaude worktree list, then klaude merge or klaude worktree prune --force)`;
}

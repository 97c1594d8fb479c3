/**
 * The dashboard's review action: an agent's diff for the diff view (c).
 */
import { shortId } from '../core/ids.js';
import type { Db } from '../db/client.js';
import { getSession } from '../db/repos/sessions.js';
import { sessionLogPath } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { sessionDiff } from '../git/session-diff.js';
import { agentDiff as zoneDiff, type ZoneReach } from '../zones/diff-merge.js';
import type { AgentDiff } from '../ui/deps.js';

export interface ReviewDeps {
  db: Db;
  home: string;
  projectRoot: string;
  logsDir: string | null;
  /** What reaching a zone takes, for a zone's agent (its diff is taken over there: zones/diff-merge.ts). */
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

/**
 * Reviewing a zone's agent from here (docs/zones.md "Review"): its diff is taken over there, where
 * its worktree is (exact, uncommitted work included); a merge first has its work committed on its
 * branch over there, fetches that branch into the same branch here over the person's ssh, then
 * merges it as any worktree agent's (git/merge.ts: never a half-merge). An agent of this machine
 * goes straight to git/.
 */
import type { KlaudeInvocation } from '../claude/shim.js';
import type { Config } from '../config/schema.js';
import { zoneOf } from '../core/zone.js';
import { isTerminal } from '../core/status.js';
import type { SessionRow } from '../db/repos/sessions.js';
import { gitTopLevel } from '../git/exec.js';
import { mergeAgentBranch, type MergeOutcome } from '../git/merge.js';
import { sessionDiff, type SessionDiff } from '../git/session-diff.js';
import { KlaudeError } from '../lib/errors.js';
import { askZone } from '../zone-client/ask-link.js';
import { fetchBranch } from './git-link.js';
import { zoneSpec } from './zone-start.js';

/** What reaching a zone takes from a command, the dashboard or the web server. */
export interface ZoneReach {
  home: string;
  env: NodeJS.ProcessEnv;
  inv: KlaudeInvocation;
  config: Config;
}

/** The agent's diff: over there for a zone's agent (its `top` is the worktree there, and `note` says so). */
export async function agentDiff(
  r: ZoneReach,
  s: SessionRow,
  o: { projectRoot: string; logPath: string | null; patch: boolean },
): Promise<SessionDiff> {
  const zone = zoneOf(s);
  if (!zone) return sessionDiff(s, o);
  const d = await askZone<SessionDiff>({ ...r, zone: zone.name }, { op: 'diff', sid: s.id, patch: o.patch }, 120_000);
  return { ...d, note: [`in zone ${zone.name}`, d.note].filter(Boolean).join('; ') };
}

/** Merge the agent's branch into the branch checked out in `cwd`; a zone's agent's branch is fetched first. */
export async function mergeAgent(r: ZoneReach, s: SessionRow, cwd: string): Promise<MergeOutcome> {
  const zone = zoneOf(s);
  if (!zone) return mergeAgentBranch(s, cwd);
  const top = gitTopLevel(cwd);
  if (!top) throw new KlaudeError('E_NOT_GIT_REPO', `${cwd} is not in a git repository: run klaude merge in your tree`);
  // Refused as a local agent's would be (no branch, still running), before anything is committed over there.
  if (!s.worktreeBranch || !isTerminal(s.status)) return mergeAgentBranch(s, cwd);
  const committed = await askZone<{ committed: boolean; branch: string }>(
    { ...r, zone: zone.name },
    { op: 'commit', sid: s.id },
    120_000,
  );
  fetchBranch({ home: r.home, env: r.env, spec: zoneSpec(r, zone.name) }, top, committed.branch);
  return { ...mergeAgentBranch(s, cwd), committedWork: committed.committed };
}

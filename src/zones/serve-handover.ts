/**
 * The zone's half of `klaude checkout <id>` bringing an agent's conversation to the person's
 * machine (zones/bring-home.ts is the other half): under the conversation's claim, refused while it
 * runs here (unless `force`, which ends its turn as `klaude interrupt` does and stops its run) or is
 * open in a terminal; its uncommitted work committed on its branch; the row marked `movedTo`, so
 * nothing here resumes it again (one writer per conversation). Asked again (a checkout whose second
 * half failed), it answers the same without doing anything twice.
 *
 * Also the budget a person sets on the other machine, which this machine's runtime enforces.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { AgentServices } from '../agent-ops/context.js';
import { interruptAgent } from '../agent-ops/message.js';
import { startQueued } from '../agent-ops/queue.js';
import { launchMetadata, type AgentLaunchMetadata } from '../agent-types/launch-settings.js';
import { claudeTranscriptPath } from '../claude/transcript.js';
import { shortId } from '../core/ids.js';
import { isActive } from '../core/status.js';
import { zoneMovedOf } from '../core/zone.js';
import { setBudget } from '../db/repos/budgets.js';
import { endProcess } from '../db/repos/processes.js';
import { getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { gitOk, gitTopLevel } from '../git/exec.js';
import { commitAgentWork } from '../git/merge.js';
import { KlaudeError } from '../lib/errors.js';
import { isSameProcess, sleep, terminateProcess } from '../lib/process.js';
import { appendSessionEvent } from '../logs/writer.js';
import { claimConversation, releaseConversation } from '../ownership/conversation-claim.js';
import { liveRuntime } from '../ownership/liveness.js';
import type { WireRequest } from './channel.js';
import { openCheck } from './serve-open.js';
import { zoneAgent } from './serve-ops.js';

/** What the person's machine needs to go on with the conversation there. */
export interface Handover {
  /** This machine's host name (the row there records where it came from). */
  host: string;
  nativeSessionId: string;
  runtime: string;
  /** Its branch in this clone and the branch's tip (null: the zone's path is not a git repository). */
  branch: string | null;
  tip: string | null;
  base: string | null;
  /** Whether uncommitted work was committed on the branch now. */
  committed: boolean;
  /** Where it worked, relative to its worktree ('' for the top). */
  sub: string;
  /** Its transcript here: the directory and the file (`<id>.jsonl`; a directory `<id>/` beside it goes too). */
  transcript: { dir: string; file: string };
  /** How it was launched here (its definition as resolved here, its sandbox), so a resume there launches the same. */
  agent: AgentLaunchMetadata['agent'] | null;
  sandbox: AgentLaunchMetadata['sandbox'] | null;
}

const PURPOSE = 'a checkout taking it to another machine';

/** How long a run stopped by `force` gets to end its interrupted turn itself before it is terminated. */
const STOP_GRACE_MS = 10_000;

export async function handover(svc: AgentServices, r: WireRequest, from: string): Promise<Handover> {
  let s = zoneAgent(svc, r.sid);
  if (!zoneMovedOf(s)) {
    const force = r.force === true;
    const short = shortId(s.id);
    const runningHint = `\`klaude wait ${short}\`, then check it out; or \`klaude checkout ${short} --force\` to stop its run (its turn ends interrupted)`;
    claimConversation(svc.db, s.id, PURPOSE, () =>
      openCheck(svc, getSession(svc.db, s.id) ?? s, { runtime: !force, runningHint }),
    );
    try {
      describe(svc, s); // its transcript is here: refused before anything changes
      await stopRun(svc, s);
      const committed = commitAgentWork(s);
      s = updateSession(svc.db, s.id, {
        metadata: { ...s.metadata, movedTo: { to: from, at: Date.now() }, movedCommitted: committed },
      })!;
      if (s.logPath)
        appendSessionEvent(s.logPath, {
          type: 'status',
          status: s.status,
          reason: `its conversation was taken to ${from} (klaude checkout): it goes on there`,
        });
    } finally {
      releaseConversation(svc.db, s.id, PURPOSE);
    }
  }
  return describe(svc, s);
}

/** `force`: its turn ended as `klaude interrupt` ends it (claude keeps the words so far), then its runtime stopped. */
async function stopRun(svc: AgentServices, s: SessionRow): Promise<void> {
  const rt = liveRuntime(svc.db, s.id);
  if (!rt) return;
  const now = getSession(svc.db, s.id) ?? s;
  if (isActive(now.status)) {
    try {
      await interruptAgent(svc, s.id);
    } catch {
      /* between turns, or its socket is gone: stopping it loses nothing more */
    }
  }
  const deadline = Date.now() + STOP_GRACE_MS;
  while (isSameProcess(rt.pid, rt.pidStart) && Date.now() < deadline) await sleep(50);
  if (isSameProcess(rt.pid, rt.pidStart)) await terminateProcess(rt, 5000, { group: true });
  endProcess(svc.db, rt.id, { exitCode: null, signal: 'SIGTERM' });
}

function describe(svc: AgentServices, s: SessionRow): Handover {
  const meta = launchMetadata(s);
  const cwd = meta?.cwd ?? s.worktreePath ?? svc.projectRoot;
  const nativeSessionId = s.nativeSessionId!;
  const transcript = s.transcriptPath ?? claudeTranscriptPath(cwd, nativeSessionId, svc.env);
  if (!existsSync(transcript))
    throw new KlaudeError('E_SWITCH_TARGET_MISSING', `${shortId(s.id)}'s conversation is not on ${os.hostname()}`, {
      hint: `no ${transcript} there: \`klaude logs ${shortId(s.id)}\` shows what it did`,
    });
  const top = gitTopLevel(svc.projectRoot);
  const branch = s.worktreeBranch;
  const rel = s.worktreePath ? path.relative(s.worktreePath, cwd) : '';
  return {
    host: os.hostname(),
    nativeSessionId,
    runtime: s.runtime,
    branch,
    tip: branch && top ? gitOk(top, ['rev-parse', `refs/heads/${branch}`]).trim() : null,
    base: s.worktreeBase,
    committed: (s.metadata as { movedCommitted?: unknown } | null)?.movedCommitted === true,
    sub: rel.startsWith('..') || path.isAbsolute(rel) ? '' : rel,
    transcript: { dir: path.dirname(transcript), file: path.basename(transcript) },
    agent: meta?.agent ?? null,
    sandbox: meta?.sandbox ?? null,
  };
}

/** `klaude budget <id> <usd>` on the person's machine: the limit here, where the runtime enforces it. */
export async function budget(svc: AgentServices, r: WireRequest): Promise<{ budgetUsd: number | null }> {
  const s = zoneAgent(svc, r.sid);
  const usd = typeof r.usd === 'number' && Number.isFinite(r.usd) && r.usd > 0 ? r.usd : null;
  setBudget(svc.db, s.id, usd);
  // Agents queued here because their tree was over the old limit may start now.
  await startQueued(svc);
  return { budgetUsd: usd };
}

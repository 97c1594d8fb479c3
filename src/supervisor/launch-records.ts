/**
 * The supervisor's reads and writes of the DB around launches and checkouts, kept out
 * of the state machine so switcher.ts reads as the protocol it implements.
 */
import { shortId } from '../core/ids.js';
import { addEvent } from '../db/repos/events.js';
import { activeLink, latestLink, linkClaudeSession } from '../db/repos/links.js';
import { currentProcesses, endProcess, recordProcess } from '../db/repos/processes.js';
import { resolveSession } from '../db/repos/resolve.js';
import { childrenOf, getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import { isSameProcess, liveRows, sleep, terminateProcess } from '../lib/process.js';
import { checkoutPurpose, claimConversation, releaseConversation } from '../ownership/conversation-claim.js';
import type { SupervisorContext } from './context.js';
import type { ForegroundExit, LaunchSpec } from './foreground.js';
import { transcriptExists } from '../claude/transcript.js';
import { assertWorktreeThere } from '../git/worktree.js';
import { existsSync } from 'node:fs';
import { interruptTurnFirst } from './turn-first.js';
import { prepareZoneTarget } from './zone-target.js';
import { assertNotMovedAway } from '../agent-ops/message.js';
import { zoneOf } from '../core/zone.js';

/**
 * Which session checkout goes to: the given id, or back from `fromSessionId`: to its parent, or
 * for a top-level session to `cameFrom`, the session the foreground was switched away from.
 */
export function resolveCheckoutTarget(
  ctx: SupervisorContext,
  target: string | undefined,
  fromSessionId: string,
  cameFrom?: string | null,
): SessionRow {
  const row = checkoutTarget(ctx, target, fromSessionId, cameFrom ?? null);
  assertOpenable(row);
  return row;
}

/** A `--worktree` agent whose worktree was pruned is refused, not opened in some other directory. */
function assertOpenable(target: SessionRow): void {
  const meta = (target.metadata ?? {}) as { cwd?: unknown };
  assertWorktreeThere(target.worktreePath, typeof meta.cwd === 'string' ? meta.cwd : null, target.id);
}

function checkoutTarget(
  ctx: SupervisorContext,
  target: string | undefined,
  fromSessionId: string,
  cameFrom: string | null,
): SessionRow {
  const projectId = ctx.projectHash;
  if (target) return resolveSession(ctx.db, target, { projectId });
  const from = getSession(ctx.db, fromSessionId);
  if (!from) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${shortId(fromSessionId)} not found`);
  const back = !from.parentId && cameFrom ? getSession(ctx.db, cameFrom) : undefined;
  if (back) return back;
  if (!from.parentId) {
    throw new KlaudeError(
      'E_SWITCH_TARGET_MISSING',
      `${shortId(from.id)} is a top-level session opened first here: there is no session to go back to`,
      {
        hint: 'name a session: `klaude checkout <id>` (`klaude sessions` lists them)',
      },
    );
  }
  const parent = getSession(ctx.db, from.parentId);
  if (!parent)
    throw new KlaudeError('E_SESSION_NOT_FOUND', `parent ${shortId(from.parentId!)} of ${shortId(from.id)} is gone`);
  return parent;
}

/**
 * The target's current native session id (its Claude session id for claude agents). A
 * just-started agent may not have one yet: wait (bounded, short sleeps — the DB offers
 * no change notification) for its link.
 */
export async function waitForClaudeId(ctx: SupervisorContext, target: SessionRow, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const isClaude = target.runtime === 'claude';
  for (;;) {
    const row = getSession(ctx.db, target.id);
    const id =
      row?.nativeSessionId ??
      (isClaude
        ? (activeLink(ctx.db, target.id)?.claudeSessionId ?? latestLink(ctx.db, target.id)?.claudeSessionId)
        : undefined);
    if (id) return id;
    if (Date.now() >= deadline) {
      throw new KlaudeError(
        'E_SWITCH_TARGET_MISSING',
        `${shortId(target.id)} has no ${isClaude ? 'Claude' : target.runtime} session yet`,
        {
          hint: `it may still be starting: retry with a longer --timeout, or check \`klaude logs ${shortId(target.id)}\``,
        },
      );
    }
    await sleep(100);
  }
}

/**
 * How to open the target in the foreground: in the directory it was started from (resume
 * is scoped to it), claude's `--resume` when a transcript exists (else the same
 * `--session-id`), another runtime's own interactive resume.
 */
export function launchSpecFor(ctx: SupervisorContext, given: SessionRow, nativeId: string): LaunchSpec {
  // As it is now: a zone's agent brought here has a worktree and a conversation of this machine.
  const target = getSession(ctx.db, given.id) ?? given;
  assertOpenable(target); // pruned meanwhile (the checkout may have waited for its Claude id)
  const zone = zoneOf(target);
  if (zone) return { sessionId: target.id, claudeSessionId: nativeId, mode: 'resume', zone: zone.name };
  const meta = (target.metadata ?? {}) as { cwd?: unknown };
  const cwd = typeof meta.cwd === 'string' && existsSync(meta.cwd) ? meta.cwd : undefined;
  nativeId = target.nativeSessionId ?? nativeId;
  if (target.runtime !== 'claude')
    return {
      sessionId: target.id,
      claudeSessionId: nativeId,
      mode: 'resume',
      runtime: target.runtime,
      ...(cwd ? { cwd } : {}),
    };
  const mode = transcriptExists(target.transcriptPath, cwd ?? ctx.cwd, nativeId, ctx.env) ? 'resume' : 'new';
  return { sessionId: target.id, claudeSessionId: nativeId, mode, ...(cwd ? { cwd } : {}) };
}

/** How a session is named in the terminal: `BNX8ZG33 (helper)`; the foreground claude is `claude`. */
export function sessionLabel(s: Pick<SessionRow, 'id' | 'type'>): string {
  return `${shortId(s.id)} (${s.type === 'tui' ? 'claude' : s.type})`;
}

/**
 * What a checkout from `from` to `target` tells the person (one line, printed on a cleared screen
 * before the relaunch) and the relaunched Claude (env KLAUDE_SWITCHED_FROM, turned into
 * SessionStart additionalContext by the hook).
 */
export function switchNotice(
  ctx: SupervisorContext,
  fromSessionId: string,
  target: SessionRow,
  note = '',
): { line: string; from: string } {
  const from = getSession(ctx.db, fromSessionId);
  const fromLabel = from ? sessionLabel(from) : shortId(fromSessionId);
  // With no id, checkout goes to the parent, or to where a top-level session was opened from.
  const back =
    target.parentId === fromSessionId || target.parentId === null
      ? '`klaude checkout`'
      : `\`klaude checkout ${shortId(fromSessionId)}\``;
  const what = note ? ` (${note})` : '';
  return { line: `klaude: switched to ${sessionLabel(target)}${what} — ${back} to go back`, from: fromLabel };
}

/**
 * When the supervisor ends: archive its fresh root if no prompt was ever sent in it (nothing to
 * resume; it would only pile up in listings and attract `--resume-last`; archived rows keep the
 * process records and show with `sessions --all`), and say how to come back to the last
 * conversation with klaude (claude's own line resumes without klaude's hooks).
 */
export function finishSupervisor(
  ctx: SupervisorContext,
  rootId: string,
  freshRoot: boolean,
  last: LaunchSpec | null,
): string | null {
  if (freshRoot && archiveIfEmpty(ctx, rootId) && (!last || last.sessionId === rootId)) return null;
  if (!last || (last.runtime && last.runtime !== 'claude')) return null;
  if (!resumable(ctx, last.sessionId, last.claudeSessionId)) return null;
  return `klaude: resume this session with klaude: klaude --resume ${shortId(last.sessionId)}`;
}

/** Archive a fresh interactive session in which no prompt was sent and no agent started; true if it was. */
export function archiveIfEmpty(ctx: SupervisorContext, id: string): boolean {
  const s = getSession(ctx.db, id);
  if (!s || s.prompt || s.archivedAt !== null || childrenOf(ctx.db, id).length > 0) return false;
  updateSession(ctx.db, id, { archivedAt: Date.now() });
  return true;
}

/** Never let two supervisors (or a supervisor and a `klaude talk` PTY session) drive one Claude session. */
export function assertNotForegroundElsewhere(ctx: SupervisorContext, sessionId: string): void {
  const pty = liveRows(currentProcesses(ctx.db, sessionId, 'pty'))[0];
  if (pty) {
    throw new KlaudeError(
      'E_SESSION_BUSY',
      `${shortId(sessionId)} is open in a PTY session (klaude talk; PTY server pid ${pty.pid})`,
      {
        hint: `talk to it with \`klaude talk ${shortId(sessionId)}\`, or exit its claude first`,
      },
    );
  }
  const others = currentProcesses(ctx.db, sessionId, 'claude').filter((p) => p.instanceId !== ctx.instanceId);
  const other = liveRows(others)[0];
  if (other) {
    throw new KlaudeError(
      'E_SESSION_BUSY',
      `${shortId(sessionId)} is open in another klaude (claude pid ${other.pid})`,
      {
        hint: 'exit it there first, or check out another session',
      },
    );
  }
}

/**
 * Make the target ours to open in the foreground: take its conversation claim (refused while
 * another supervisor or a PTY session has it open), then stop a headless runtime on it. A running
 * agent is not stopped unless `force`: a CLI checkout is usually Claude calling it through its
 * Bash tool, so nobody could be asked, and stopping the run silently would lose its work. The
 * claim is released by the launch (Switcher.launch) or by the caller on failure. A zone's agent is
 * brought here first, or with `remote` checked over there (supervisor/zone-target.ts).
 */
export async function prepareTarget(
  ctx: SupervisorContext,
  target: SessionRow,
  opts: { force: boolean; remote?: boolean },
): Promise<{ note: string }> {
  claimConversation(ctx.db, target.id, checkoutPurpose(ctx.instanceId), () => {
    assertNotMovedAway(target); // (on a zone: its conversation went to the person's machine)
    assertNotForegroundElsewhere(ctx, target.id);
    const live = liveRows(currentProcesses(ctx.db, target.id, 'runtime'))[0];
    if (live && !opts.force) {
      throw new KlaudeError(
        'E_SESSION_BUSY',
        `${shortId(target.id)} is running (runtime pid ${live.pid}): checking it out now would stop its turn`,
        {
          hint: `\`klaude wait ${shortId(target.id)}\`, then check it out; or \`klaude checkout ${shortId(target.id)} --force\` to stop its run`,
        },
      );
    }
  });
  try {
    await stopHeadlessRuntime(ctx, target.id);
    // A zone's agent: brought here, or (remote) asked whether it may be opened over there.
    return { note: await prepareZoneTarget(ctx, target, { force: opts.force, remote: opts.remote === true }) };
  } catch (e) {
    releaseConversation(ctx.db, target.id, checkoutPurpose(ctx.instanceId));
    throw e;
  }
}

/** A headless runtime driving the target's Claude session is stopped before the TUI resumes it. */
export async function stopHeadlessRuntime(ctx: SupervisorContext, sessionId: string): Promise<void> {
  for (const p of currentProcesses(ctx.db, sessionId, 'runtime')) {
    const graceMs = ctx.config['switch.graceSeconds'] * 1000;
    if (isSameProcess(p.pid, p.pidStart) && !(await interruptTurnFirst(ctx, sessionId, p, graceMs))) {
      ctx.log.info('stopping headless runtime before checkout', { sessionId, pid: p.pid });
      await terminateProcess(p, graceMs, { group: true });
    }
    endProcess(ctx.db, p.id, { exitCode: null, signal: 'SIGTERM' });
  }
}

/** An interactive root session (type 'tui'), as opposed to an agent someone checked out. */
export function isInteractiveRoot(ctx: SupervisorContext, sessionId: string): boolean {
  return (getSession(ctx.db, sessionId)?.type ?? 'tui') === 'tui';
}

export function resumable(ctx: SupervisorContext, sessionId: string, claudeSessionId: string): boolean {
  const s = getSession(ctx.db, sessionId);
  return transcriptExists(s?.transcriptPath, ctx.cwd, claudeSessionId, ctx.env);
}

export function beforeLaunch(ctx: SupervisorContext, spec: LaunchSpec): void {
  // Knowing the id up front means the link exists before any hook fires (a zone's claude's are over there).
  if (!spec.zone && (!spec.runtime || spec.runtime === 'claude'))
    linkClaudeSession(ctx.db, {
      klaudeSessionId: spec.sessionId,
      claudeSessionId: spec.claudeSessionId,
      source: spec.mode === 'new' ? 'startup' : 'resume',
    });
  updateSession(ctx.db, spec.sessionId, { status: 'idle', endedAt: null, instanceId: ctx.instanceId });
}

export function recordForeground(ctx: SupervisorContext, spec: LaunchSpec, pid: number): number {
  const row = recordProcess(ctx.db, {
    klaudeSessionId: spec.sessionId,
    instanceId: ctx.instanceId,
    pid,
    kind: 'claude',
  });
  addEvent(ctx.db, {
    projectId: ctx.projectHash,
    klaudeSessionId: spec.sessionId,
    kind: 'foreground.start',
    payload: { pid, claudeSessionId: spec.claudeSessionId, mode: spec.mode },
  });
  return row.id;
}

export function afterExit(
  ctx: SupervisorContext,
  ev: ForegroundExit,
  rowId: number | null,
  relaunchingSame: boolean,
): void {
  try {
    if (rowId !== null) endProcess(ctx.db, rowId, { exitCode: ev.code, signal: ev.signal });
    if (!relaunchingSame) updateSession(ctx.db, ev.spec.sessionId, { status: 'done', endedAt: Date.now() });
    addEvent(ctx.db, {
      projectId: ctx.projectHash,
      klaudeSessionId: ev.spec.sessionId,
      kind: 'foreground.exit',
      payload: { pid: ev.pid, code: ev.code, signal: ev.signal, ranMs: ev.ranMs },
    });
  } catch (err) {
    ctx.log.error('recording foreground exit failed', { err });
  }
}

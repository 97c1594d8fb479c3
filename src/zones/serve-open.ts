/**
 * A zone's agent's conversation opened in its CLI over there, on a terminal of ssh's: `ssh -t <zone>
 * klaude __zone-serve --path <clone> --open <id>`, run by a talk session's PTY on the person's
 * machine (pty/prepare.ts) or by `klaude checkout --remote` in its foreground. It resumes the
 * conversation where its files are (the agent's worktree over there), with klaude's hooks of this
 * machine's klaude, so its row here — and the mirror on the person's machine — says what it does.
 *
 * One writer per conversation, as for a talk session here: refused while its runtime runs, while it
 * is open elsewhere, or once `klaude checkout` took it away; the claude it starts is recorded as the
 * session's foreground (a `claude` process row), so a message or a second open meanwhile is refused.
 * That claude lives exactly as long as the ssh session: sshd's hang-up ends it, and the watchdog
 * ends it if this process dies first.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { closeAgentServices, openAgentServices, type AgentServices } from '../agent-ops/context.js';
import { assertNotMovedAway } from '../agent-ops/message.js';
import { launchMetadata } from '../agent-types/launch-settings.js';
import { InterruptWatch } from '../claude/transcript-follower.js';
import { logFilePath } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { addEvent } from '../db/repos/events.js';
import { linkClaudeSession } from '../db/repos/links.js';
import { endProcess, recordProcess } from '../db/repos/processes.js';
import { getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { assertWorktreeThere } from '../git/worktree.js';
import { KlaudeError } from '../lib/errors.js';
import { createFileLogger, type Logger } from '../lib/logger.js';
import { claimConversation, claimedByOther, releaseConversation } from '../ownership/conversation-claim.js';
import { describeForeground, inForeground, liveRuntime } from '../ownership/liveness.js';
import { reconcile } from '../ownership/reconcile.js';
import { guardChild } from '../ownership/watchdog.js';
import { buildLaunch, interactiveEnv, type Launch } from '../pty/prepare.js';
import { zoneAgent } from './serve-ops.js';

const PURPOSE = 'a terminal over ssh starting';

/**
 * Why `s`'s conversation cannot be opened here now (thrown), checked before the person's PTY is made
 * and again under the claim. `runtime: false`: a live run is the caller's to stop (a forced checkout);
 * `runningHint`: what to do about a live run instead.
 */
export function openCheck(
  svc: AgentServices,
  s: SessionRow,
  o: { runtime?: boolean; runningHint?: string } = {},
): void {
  assertNotMovedAway(s);
  const short = shortId(s.id);
  const host = os.hostname();
  const fg = inForeground(svc.db, s.id);
  if (fg)
    throw new KlaudeError('E_SESSION_BUSY', `${short} is open on ${host} in ${describeForeground(fg)}`, {
      hint: 'exit that claude first',
    });
  const rt = o.runtime === false ? null : liveRuntime(svc.db, s.id);
  if (rt)
    throw new KlaudeError('E_SESSION_BUSY', `${short} is running on ${host} (runtime pid ${rt.pid})`, {
      hint:
        o.runningHint ??
        `wait for it (\`klaude wait ${short}\`) or interrupt it (\`klaude interrupt ${short}\`), then open it`,
    });
  if (!s.nativeSessionId)
    throw new KlaudeError('E_SWITCH_TARGET_MISSING', `${short} has no conversation on ${host} yet`, {
      hint: `it may still be starting: \`klaude logs ${short}\``,
    });
  const holder = claimedByOther(svc.db, s.id);
  if (holder)
    throw new KlaudeError('E_SESSION_BUSY', `${short} is taken by ${holder}`, { hint: 'try again once that is done' });
  assertWorktreeThere(s.worktreePath, launchMetadata(s)?.cwd, s.id);
}

/** The serve's `open-check`: the same checks, asked through the link before the person's PTY is made. */
export function openCheckRequest(svc: AgentServices, sid: unknown): { ok: true } {
  openCheck(svc, zoneAgent(svc, sid, { resumes: true }));
  return { ok: true };
}

/** `__zone-serve --path <clone> --open <id>`: claude's exit code (or 128 + its signal). */
export async function zoneOpenMain(root: string, sid: string, env: NodeJS.ProcessEnv): Promise<number> {
  const svc = openAgentServices({ env, cwd: root });
  const log = createFileLogger(logFilePath(svc.home), 'zone-open', env);
  try {
    reconcile(svc.db, { projectId: svc.projectHash });
    const s = zoneAgent(svc, sid, { resumes: true });
    claimConversation(svc.db, s.id, PURPOSE, () => openCheck(svc, getSession(svc.db, s.id) ?? s));
    let exited: Promise<number>;
    try {
      const launch = await buildLaunch(svc.db, s, env, root, svc.inv);
      if (s.runtime === 'claude')
        linkClaudeSession(svc.db, { klaudeSessionId: s.id, claudeSessionId: launch.nativeId, source: 'resume' });
      ({ exited } = await runOpen(svc, s, launch, interactiveEnv({ ...svc, env }, s, svc.projectRoot), log));
    } finally {
      // The `claude` row written by runOpen says who writes from here on.
      releaseConversation(svc.db, s.id, PURPOSE);
    }
    return await exited;
  } finally {
    await closeAgentServices(svc);
  }
}

/** Start the CLI on this terminal; resolves once it runs, with a promise of its exit code. */
async function runOpen(
  svc: AgentServices,
  s: SessionRow,
  launch: Launch,
  env: NodeJS.ProcessEnv,
  log: Logger,
): Promise<{ exited: Promise<number> }> {
  const child = spawn(launch.file, launch.args, { stdio: 'inherit', env, cwd: launch.cwd });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e) =>
      reject(new KlaudeError('E_CLAUDE_NOT_FOUND', `could not start ${launch.file} on ${os.hostname()}: ${e.message}`)),
    );
  });
  const pid = child.pid!;
  // The terminal's keys are the CLI's: Ctrl-C, Ctrl-\ and a hang-up reach it (and end it), not this process.
  for (const sig of ['SIGINT', 'SIGQUIT', 'SIGTSTP', 'SIGHUP'] as const) process.on(sig, () => undefined);
  process.on('SIGTERM', () => child.kill('SIGTERM'));
  const guard = guardChild(pid, { graceMs: 3000 });
  const row = recordProcess(svc.db, { klaudeSessionId: s.id, pid, kind: 'claude' });
  updateSession(svc.db, s.id, { status: 'idle', endedAt: null });
  addEvent(svc.db, {
    projectId: s.projectId,
    klaudeSessionId: s.id,
    kind: 'zone.open',
    payload: { pid, nativeSessionId: launch.nativeId, mode: launch.mode },
  });
  log.info('opened over ssh', { sid: s.id, pid, cwd: launch.cwd });
  // The person's Esc ends a turn with no hook: the transcript says so (as the PTY server does).
  const interrupts = new InterruptWatch({ db: svc.db, dbPath: svc.db.sqlite.name, log });
  interrupts.track(s.id);
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => {
      guard.dispose();
      interrupts.close();
      try {
        endProcess(svc.db, row.id, { exitCode: code, signal });
        updateSession(svc.db, s.id, { status: 'done', endedAt: Date.now() });
      } catch (err) {
        log.error('recording the end of an open over ssh failed', { err });
      }
      log.info('closed over ssh', { sid: s.id, code, signal });
      resolve(code ?? 128 + (signal ? (os.constants.signals[signal] ?? 1) : 1));
    }),
  );
  return { exited };
}

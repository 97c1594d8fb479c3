/**
 * One session in the PTY server: claim it (a `runtime_process` row kind 'pty' whose pid is the
 * server's; refused while a foreground claude, a headless runtime or another PTY server drives
 * it: never two processes on one conversation), start its CLI in a PTY with the starter's env,
 * guard the CLI with a watchdog owned by the server (the server SIGKILLed ⇒ the CLI ends too),
 * listen on the session's own socket `<runDir>/<hash>/p/<id>.sock` (the protocol viewers and
 * `klaude talk` speak: host.ts), and, when the CLI exits, end the row and the session ('done',
 * resumable).
 */
import { klaudeHome } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { tx, type Db } from '../db/client.js';
import { addEvent } from '../db/repos/events.js';
import { linkClaudeSession } from '../db/repos/links.js';
import { endProcess, recordProcess } from '../db/repos/processes.js';
import { getSession, updateSession } from '../db/repos/sessions.js';
import { KlaudeError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { guardChild } from '../lib/watchdog.js';
import { claimedByOther } from '../recovery/claim.js';
import { currentInvocation, ensureShim, prependPath } from '../claude/shim.js';
import { validSize } from './framing.js';
import { ATTACH_HISTORY_LINES, PtyHost } from './host.js';
import { ptySocketPath } from './paths.js';
import { spawnInPty, type PtyExitInfo } from './pty-process.js';
import type { HostRequest } from './server-protocol.js';
import { HeadlessScreen } from './screen.js';
import { buildLaunch, busyReason, finishRecords } from './session-launch.js';

/** Between SIGTERM and SIGKILL when a session is stopped (and for the watchdog). */
export const STOP_GRACE_MS = 3000;

export interface Hosted {
  sessionId: string;
  host: PtyHost;
  /** The CLI's pid. */
  pid: number;
  socket: string;
  /** Resolves once the CLI exited and its records are written. */
  done: Promise<PtyExitInfo>;
}

export async function startSession(db: Db, home: string, baseLog: Logger, req: HostRequest): Promise<Hosted> {
  const env = req.env;
  if (klaudeHome(env) !== home) {
    throw new KlaudeError('E_BAD_REQUEST', `this PTY server serves ${home}, not ${klaudeHome(env)}`);
  }
  const log = baseLog.child(shortId(req.sessionId));
  const size = validSize({ cols: req.cols, rows: req.rows }) ?? { cols: 80, rows: 24 };
  const session = getSession(db, req.sessionId);
  if (!session) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${shortId(req.sessionId)} not found`);
  const launch = await buildLaunch(db, session, env, req.cwd);
  const rowId = tx(db, () => {
    const busy = busyReason(db, session.id, process.pid);
    if (busy) throw new KlaudeError('E_SESSION_BUSY', busy, { hint: 'detach or exit it there first' });
    // A checkout (or a resume) holds the conversation claim: it is about to write it. The
    // starter's own claim passes to us.
    const holder = claimedByOther(db, session.id, req.starterPid);
    if (holder) throw new KlaudeError('E_SESSION_BUSY', `${shortId(session.id)} is taken by ${holder}`, { hint: 'try again once that is done' });
    return recordProcess(db, { klaudeSessionId: session.id, instanceId: null, pid: process.pid, kind: 'pty' }).id;
  });
  try {
    if (session.runtime === 'claude') {
      linkClaudeSession(db, { klaudeSessionId: session.id, claudeSessionId: launch.nativeId, source: launch.mode === 'new' ? 'startup' : 'resume' });
    }
    updateSession(db, session.id, { status: 'idle', endedAt: null });
    const shimDir = ensureShim(home, currentInvocation());
    const childEnv: NodeJS.ProcessEnv = {
      ...env,
      KLAUDE_HOME: home,
      KLAUDE_PROJECT_HASH: session.projectId,
      KLAUDE_SESSION_ID: session.id,
      KLAUDE_INSTANCE_ID: undefined,
      KLAUDE_SOCKET: undefined,
      PATH: prependPath(shimDir, env.PATH),
    };
    log.info('starting PTY session', { file: launch.file, mode: launch.mode, nativeId: launch.nativeId, cwd: launch.cwd, ...size });
    const child = spawnInPty(launch.file, launch.args, { ...size, cwd: launch.cwd, env: childEnv, term: env.TERM || undefined });
    // The CLI leads its own session and group (the PTY's): the watchdog ends the group.
    const guard = guardChild(child.pid, { graceMs: STOP_GRACE_MS, group: child.pid });
    // Scrollback beyond what an attach replays would only hold memory.
    const screen = new HeadlessScreen({ ...size, scrollback: ATTACH_HISTORY_LINES });
    const socket = ptySocketPath(home, session.projectId, session.id, env);
    const host = new PtyHost({ sessionId: session.id, socketPath: socket, child, screen, log, label: shortId(session.id) });
    const done = new Promise<PtyExitInfo>((resolve) =>
      host.once('exit', (e) => {
        guard.dispose();
        log.info('PTY session ended', { ...e });
        finishRecords(db, log, session, rowId, e);
        screen.dispose();
        resolve(e);
      }),
    );
    try {
      await host.listen();
    } catch (e) {
      child.kill('SIGKILL');
      await done;
      throw e;
    }
    addEvent(db, {
      projectId: session.projectId,
      klaudeSessionId: session.id,
      kind: 'pty.start',
      payload: { hostPid: process.pid, pid: child.pid, nativeSessionId: launch.nativeId, mode: launch.mode },
    });
    return { sessionId: session.id, host, pid: child.pid, socket, done };
  } catch (e) {
    endProcess(db, rowId, { exitCode: 1 });
    throw e;
  }
}

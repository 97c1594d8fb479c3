/**
 * One session in the PTY server: claim it (a `runtime_process` row kind 'pty' whose pid is the
 * server's; refused while a foreground claude, a headless runtime or another PTY server drives
 * it, or someone other than the starter holds its conversation claim: never two processes on one
 * conversation), start its CLI in a PTY with the command line and env the starter prepared
 * (pty/prepare.ts), guard the CLI with a watchdog owned by the server (the server SIGKILLed ⇒ the CLI
 * ends too), listen on the session's own socket `<runDir>/<hash>/p/<id>.sock` (the protocol viewers
 * and `klaude talk` speak: host.ts), and, when the CLI exits, end the row and the session ('done',
 * resumable).
 */
import { klaudeHome } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import type { HasSqlite } from '../db/connection.js';
import { addEvent } from '../db/repos/events.js';
import { InterruptWatch } from '../claude/transcript-follower.js';
import { endRow, recordCurrentRow, runStateOf, setRunState, writeTx, type RunState } from '../db/repos/pty-records.js';
import { KlaudeError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { processStartTime } from '../lib/process.js';
import { WatchdogPool } from '../ownership/watchdog-pool.js';
import { validSize } from './framing.js';
import { ATTACH_HISTORY_LINES, PtyHost } from './host.js';
import { ptySocketPath } from './socket-path.js';
import { spawnInPty, type PtyExitInfo } from './pty-process.js';
import type { HostRequest } from './protocol.js';
import { HeadlessScreen } from './screen.js';
import { busyReason, claimedByOther, finishRecords } from './session-records.js';

/** Between SIGTERM and SIGKILL when a session is stopped (and for the watchdog). */
export const STOP_GRACE_MS = 3000;

/** One `sh` watchdog for every CLI this server hosts (not one each): it ends them if the server dies. */
const watchdogs = new WatchdogPool();
/** Ends a hosted claude's turn when the person interrupts it there (claude runs no hook then). */
let interrupts: InterruptWatch | undefined;

export interface Hosted {
  sessionId: string;
  host: PtyHost;
  /** The CLI's pid. */
  pid: number;
  socket: string;
  /** Resolves once the CLI exited and its records are written. */
  done: Promise<PtyExitInfo>;
}

let selfStart: number | null | undefined;

export async function startSession(db: HasSqlite, home: string, baseLog: Logger, req: HostRequest): Promise<Hosted> {
  const { env } = req;
  if (klaudeHome(env) !== home) {
    throw new KlaudeError('E_BAD_REQUEST', `this PTY server serves ${home}, not ${klaudeHome(env)}`);
  }
  const s = { id: String(req.sessionId), projectId: String(req.projectId) };
  const log = baseLog.child(shortId(s.id));
  const size = validSize({ cols: req.cols, rows: req.rows }) ?? { cols: 80, rows: 24 };
  if (selfStart === undefined) selfStart = processStartTime(process.pid);
  let before: RunState | undefined;
  const rowId = writeTx(db, () => {
    const busy = busyReason(db, s.id, process.pid);
    if (busy) throw new KlaudeError('E_SESSION_BUSY', busy, { hint: 'detach or exit it there first' });
    // A checkout (or a resume) holds the conversation claim: it is about to write it.
    const holder = claimedByOther(db, s.id, req.starterPid);
    if (holder)
      throw new KlaudeError('E_SESSION_BUSY', `${shortId(s.id)} is taken by ${holder}`, {
        hint: 'try again once that is done',
      });
    before = runStateOf(db, s.id);
    if (!before) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${shortId(s.id)} not found`);
    const id = recordCurrentRow(db, { sessionId: s.id, kind: 'pty', pid: process.pid, pidStart: selfStart ?? null });
    setRunState(db, s.id, 'idle', null);
    return id;
  });
  try {
    log.info('starting PTY session', { file: req.file, mode: req.mode, nativeId: req.nativeId, cwd: req.cwd, ...size });
    const child = spawnInPty(req.file, req.args, { ...size, cwd: req.cwd, env, term: env.TERM || undefined });
    // The CLI leads its own session and group (the PTY's): the watchdog ends the group.
    const guard = watchdogs.guard(child.pid, { graceMs: STOP_GRACE_MS, group: child.pid });
    // Scrollback beyond what an attach replays would only hold memory.
    const screen = new HeadlessScreen({ ...size, scrollback: ATTACH_HISTORY_LINES });
    const socket = ptySocketPath(home, s.projectId, s.id, env);
    const host = new PtyHost({ sessionId: s.id, socketPath: socket, child, screen, log, label: shortId(s.id) });
    interrupts ??= new InterruptWatch({ db, dbPath: db.sqlite.name, log: baseLog.child('interrupts') });
    interrupts.track(s.id);
    const done = new Promise<PtyExitInfo>((resolve) =>
      host.once('exit', (e) => {
        guard.dispose();
        interrupts?.untrack(s.id);
        log.info('PTY session ended', { ...e });
        finishRecords(db, log, s, rowId, e);
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
      projectId: s.projectId,
      klaudeSessionId: s.id,
      kind: 'pty.start',
      payload: { hostPid: process.pid, pid: child.pid, nativeSessionId: req.nativeId, mode: req.mode },
    });
    return { sessionId: s.id, host, pid: child.pid, socket, done };
  } catch (e) {
    // No CLI (or one killed before anyone could reach it): the session is as it was.
    endRow(db, rowId, { exitCode: 1 });
    if (before) setRunState(db, s.id, before.status, before.endedAt);
    throw e;
  }
}

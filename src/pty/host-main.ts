/**
 * `klaude __ptyhost <sessionId> <cols> <rows>`: the detached process that keeps one interactive
 * session alive in a PTY (dtach/abduco model). Started by `klaude talk` (launch.ts) in its own
 * session and process group, so it outlives the terminal and the talk that started it.
 *
 *   claim (a runtime_process row kind 'pty'; refused while a foreground claude, a headless runtime
 *   or another PTY host drives the session: never two processes on one conversation)
 *   ─▶ `claude --resume <id>` (or `--session-id` for a conversation not started yet; other runtimes:
 *      their adapter's interactiveResume) in a PTY, with klaude's hooks and KLAUDE_* env, in the
 *      session's cwd ─▶ listen on `<runDir>/<hash>/p/<id>.sock` ─▶ one JSON line on stdout for the
 *   starter ({ok, pid, socket} or {error}) ─▶ serve clients until the CLI exits ─▶ end the row,
 *   session 'done', unlink the socket, exit with the CLI's code.
 *
 * SIGTERM/SIGINT stop the CLI (SIGKILL after a grace); SIGHUP is ignored (no terminal to lose).
 */
import { randomUUID } from 'node:crypto';
import { existsSync, writeSync } from 'node:fs';
import { constants as osConstants } from 'node:os';
import { loadConfig } from '../config/config.js';
import { klaudeHome, logFilePath } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { openDb, tx, type Db } from '../db/client.js';
import { addEvent } from '../db/repos/events.js';
import { activeLink, latestLink, linkClaudeSession } from '../db/repos/links.js';
import { currentProcesses, endProcess, recordProcess } from '../db/repos/processes.js';
import { getProject } from '../db/repos/projects.js';
import { getSession, updateSession, type SessionRow } from '../db/repos/sessions.js';
import { hookSettings } from '../hooks/settings.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import { createFileLogger, type Logger } from '../lib/logger.js';
import { isAlive } from '../lib/process.js';
import { claimedByOther } from '../recovery/claim.js';
import { getAdapter } from '../runtimes/adapter.js';
import { currentInvocation, ensureShim, prependPath } from '../claude/shim.js';
import { transcriptExists } from '../claude/transcript.js';
import { validSize } from './framing.js';
import { ATTACH_HISTORY_LINES, PtyHost } from './host.js';
import type { HostReady } from './launch.js';
import { ptySocketPath } from './paths.js';
import { spawnInPty, type PtyExitInfo } from './pty-process.js';
import { HeadlessScreen } from './screen.js';

const STOP_GRACE_MS = 3000;

function report(r: HostReady): void {
  try {
    writeSync(1, `${JSON.stringify(r)}\n`);
  } catch {
    /* the starter went away: nothing to tell */
  }
}

/** Who else drives this session right now (a live process row of another kind, or another host). */
export function busyReason(db: Db, sessionId: string, selfPid: number): string | null {
  const s = shortId(sessionId);
  const fg = currentProcesses(db, sessionId, 'claude').find((p) => isAlive(p.pid));
  if (fg) return `${s} is open in a klaude foreground (claude pid ${fg.pid})`;
  const rt = currentProcesses(db, sessionId, 'runtime').find((p) => isAlive(p.pid));
  if (rt) return `${s} is running headless (runtime pid ${rt.pid})`;
  const other = currentProcesses(db, sessionId, 'pty').find((p) => p.pid !== selfPid && isAlive(p.pid));
  if (other) return `${s} already runs in a PTY session (host pid ${other.pid})`;
  return null;
}

interface Launch {
  file: string;
  args: string[];
  cwd: string;
  nativeId: string;
  mode: 'resume' | 'new';
}

/** The interactive command for the session: claude with klaude's hooks, or the runtime's own resume. */
async function buildLaunch(db: Db, session: SessionRow, env: NodeJS.ProcessEnv): Promise<Launch> {
  const { config } = loadConfig(klaudeHome(env));
  const meta = session.metadata as { cwd?: unknown } | null;
  const root = getProject(db, session.projectId)?.rootPath ?? process.cwd();
  const cwd = typeof meta?.cwd === 'string' && existsSync(meta.cwd) ? meta.cwd : root;
  const adapter = await getAdapter(session.runtime);
  const binary = adapter.resolveBinary(config, env);
  const known =
    session.nativeSessionId ??
    (session.runtime === 'claude' ? (activeLink(db, session.id)?.claudeSessionId ?? latestLink(db, session.id)?.claudeSessionId) : null) ??
    null;
  if (session.runtime !== 'claude') {
    if (!known) {
      throw new KlaudeError('E_SWITCH_TARGET_MISSING', `${shortId(session.id)} has no ${session.runtime} session yet`, {
        hint: `it may still be starting: \`klaude logs ${shortId(session.id)}\``,
      });
    }
    const cmd = adapter.interactiveResume(binary, known);
    return { file: cmd.file, args: cmd.args, cwd, nativeId: known, mode: 'resume' };
  }
  const nativeId = known ?? randomUUID();
  const mode = known && transcriptExists(session.transcriptPath, cwd, known, env) ? 'resume' : 'new';
  const settings = JSON.stringify(hookSettings(currentInvocation()));
  const args = [mode === 'resume' ? '--resume' : '--session-id', nativeId, '--settings', settings];
  if (session.model) args.push('--model', session.model);
  return { file: binary, args, cwd, nativeId, mode };
}

export async function ptyHostMain(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const [sessionId, colsArg, rowsArg] = argv;
  if (!sessionId) throw new KlaudeError('E_USAGE', '`klaude __ptyhost` is internal: `klaude talk` runs it', { hint: 'use `klaude talk <id>`' });
  const size = validSize({ cols: Number(colsArg), rows: Number(rowsArg) }) ?? { cols: 80, rows: 24 };
  const home = klaudeHome(env);
  const log = createFileLogger(logFilePath(home), 'ptyhost', env).child(shortId(sessionId));
  // Nothing after the ready line may write to stdout (the starter has stopped reading).
  process.stdout.on('error', () => undefined);
  let db: Db | null = null;
  let rowId: number | null = null;
  try {
    db = openDb(home);
    const session = getSession(db, sessionId);
    if (!session) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${shortId(sessionId)} not found`);
    const launch = await buildLaunch(db, session, env);
    const claimDb = db;
    rowId = tx(claimDb, () => {
      const busy = busyReason(claimDb, session.id, process.pid);
      if (busy) throw new KlaudeError('E_SESSION_BUSY', busy, { hint: 'detach or exit it there first' });
      // A checkout (or a resume) holds the conversation claim: it is about to write it.
      const holder = claimedByOther(claimDb, session.id, process.ppid);
      if (holder) throw new KlaudeError('E_SESSION_BUSY', `${shortId(session.id)} is taken by ${holder}`, { hint: 'try again once that is done' });
      return recordProcess(claimDb, { klaudeSessionId: session.id, instanceId: null, pid: process.pid, kind: 'pty' }).id;
    });
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
    // Scrollback beyond what an attach replays would only hold memory.
    const screen = new HeadlessScreen({ ...size, scrollback: ATTACH_HISTORY_LINES });
    const host = new PtyHost({ sessionId: session.id, socketPath: ptySocketPath(home, session.projectId, session.id, env), child, screen, log, label: shortId(session.id) });
    const exited = new Promise<PtyExitInfo>((resolve) => host.once('exit', resolve));
    try {
      await host.listen();
    } catch (e) {
      child.kill('SIGKILL');
      throw e;
    }
    addEvent(db, {
      projectId: session.projectId,
      klaudeSessionId: session.id,
      kind: 'pty.start',
      payload: { hostPid: process.pid, pid: child.pid, nativeSessionId: launch.nativeId, mode: launch.mode },
    });
    report({ ok: true, pid: child.pid, hostPid: process.pid, socket: ptySocketPath(home, session.projectId, session.id, env) });

    const stop = (): void => host.stop(STOP_GRACE_MS);
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.on('SIGHUP', () => undefined);
    const e = await exited;
    log.info('PTY session ended', { ...e });
    finishRecords(db, log, session, rowId, e);
    screen.dispose();
    return e.signal ? 128 + e.signal : e.exitCode;
  } catch (e) {
    log.error('PTY host failed', { err: e });
    if (db && rowId !== null) endProcess(db, rowId, { exitCode: 1 });
    const err = isKlaudeError(e) ? e : new KlaudeError('E_INTERNAL', (e as Error)?.message ?? String(e));
    report({ ok: false, error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } });
    return 1;
  } finally {
    db?.close();
  }
}

function signalName(n: number | null): string | null {
  if (!n) return null;
  return Object.entries(osConstants.signals).find(([, v]) => v === n)?.[0] ?? String(n);
}

function finishRecords(db: Db, log: Logger, session: SessionRow, rowId: number, e: PtyExitInfo): void {
  try {
    endProcess(db, rowId, { exitCode: e.signal ? null : e.exitCode, signal: signalName(e.signal) });
    updateSession(db, session.id, { status: 'done', endedAt: Date.now() });
    addEvent(db, { projectId: session.projectId, klaudeSessionId: session.id, kind: 'pty.exit', payload: { code: e.exitCode, signal: signalName(e.signal) } });
  } catch (err) {
    log.error('recording the end of the PTY session failed', { err });
  }
}

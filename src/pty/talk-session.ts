/**
 * `klaude talk <id> [--view]`: open a session's interactive CLI in a PTY that keeps running in the
 * background, and put this terminal through to it. Resolves the session, refuses when a foreground
 * supervisor's claude or a headless runtime drives it (never two processes on one conversation),
 * has the PTY server start it when it is not running, and attaches (control, or read-only with --view).
 */
import { loadConfig } from '../config/config.js';
import { klaudeHome, projectHash, projectRoot } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { openDb, type Db } from '../db/client.js';
import { currentProcesses } from '../db/repos/processes.js';
import { resolveSession } from '../db/repos/resolve.js';
import type { SessionRow } from '../db/schema.js';
import { KlaudeError } from '../lib/errors.js';
import { liveRows } from '../lib/process.js';
import { claimedByOther } from '../ownership/conversation-claim.js';
import { reconcile } from '../ownership/reconcile.js';
import { currentInvocation } from '../claude/shim.js';
import { assertWorktreeThere } from '../git/worktree.js';
import { attachTerminal, type AttachEnd } from './attach.js';
import { parseDetachKey } from './detach.js';
import { spawnPtyHost } from './launch.js';
import { ptySocketPath } from '../ptyd/socket-path.js';

export interface TalkOptions {
  target: string;
  view: boolean;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  stderr?: NodeJS.WritableStream;
}

/** In this project first, then anywhere (like `klaude logs`). */
function findSession(db: Db, input: string, projectId: string): SessionRow {
  try {
    return resolveSession(db, input, { projectId });
  } catch (e) {
    if (e instanceof KlaudeError && e.code === 'E_SESSION_NOT_FOUND' && input.trim().length >= 4)
      return resolveSession(db, input);
    throw e;
  }
}

export interface TalkPlan {
  session: SessionRow;
  /** The pid of the PTY server that hosts the session, when one does. */
  hostPid: number | null;
}

/**
 * Which session, and whether a PTY host already runs it. Throws E_SESSION_BUSY when a klaude
 * foreground's claude or a headless runtime drives it (never two processes on one conversation).
 */
export function planTalk(home: string, target: string, cwd: string): TalkPlan {
  const db = openDb(home);
  try {
    let hash: string | undefined;
    try {
      hash = projectHash(projectRoot(cwd));
    } catch {
      hash = undefined;
    }
    reconcile(db, hash ? { projectId: hash } : {});
    const session = hash ? findSession(db, target, hash) : resolveSession(db, target);
    const s = shortId(session.id);
    const meta = (session.metadata ?? {}) as { cwd?: unknown };
    assertWorktreeThere(session.worktreePath, typeof meta.cwd === 'string' ? meta.cwd : null, session.id);
    const fg = liveRows(currentProcesses(db, session.id, 'claude'))[0];
    if (fg) {
      throw new KlaudeError('E_SESSION_BUSY', `${s} is open in a klaude foreground (claude pid ${fg.pid})`, {
        hint: 'talk to it there, or exit that claude (or check out another session) first',
      });
    }
    const rt = liveRows(currentProcesses(db, session.id, 'runtime'))[0];
    if (rt) {
      throw new KlaudeError('E_SESSION_BUSY', `${s} is running headless (runtime pid ${rt.pid})`, {
        hint: `wait for it (\`klaude wait ${s}\`) or interrupt it (\`klaude interrupt ${s}\`), then talk`,
      });
    }
    const host = liveRows(currentProcesses(db, session.id, 'pty'))[0];
    const holder = host ? null : claimedByOther(db, session.id);
    if (holder)
      throw new KlaudeError('E_SESSION_BUSY', `${s} is taken by ${holder}`, { hint: 'try again once that is done' });
    return { session, hostPid: host?.pid ?? null };
  } finally {
    db.close();
  }
}

export async function talk(o: TalkOptions): Promise<number> {
  const stdin = o.stdin ?? process.stdin;
  const stdout = o.stdout ?? process.stdout;
  const stderr = o.stderr ?? process.stderr;
  if (!stdin.isTTY || !stdout.isTTY) {
    throw new KlaudeError('E_USAGE', '`klaude talk` needs a terminal (stdin and stdout)', {
      hint: 'run it in a terminal; from scripts use `klaude message <id> "…"`',
    });
  }
  const home = klaudeHome(o.env);
  const { config } = loadConfig(home);
  const detachKey = parseDetachKey(config['talk.detachKey']);
  const { session, hostPid } = planTalk(home, o.target, o.cwd);
  const s = shortId(session.id);
  const start = async (): Promise<string> => {
    if (o.view) {
      throw new KlaudeError('E_AGENT_NOT_RUNNING', `${s} is not running in a PTY session`, {
        hint: `\`klaude talk ${s}\` starts one`,
      });
    }
    const started = await spawnPtyHost({
      home,
      sessionId: session.id,
      inv: currentInvocation(),
      env: o.env,
      cwd: o.cwd,
      size: { cols: stdout.columns || 80, rows: stdout.rows || 24 },
    });
    return started.socket;
  };
  const socket = hostPid === null ? await start() : ptySocketPath(home, session.projectId, session.id, o.env);
  const attach = (socketPath: string): Promise<AttachEnd> =>
    attachTerminal({
      socketPath,
      mode: o.view ? 'view' : 'control',
      detachKey,
      stdin,
      stdout,
      who: `klaude talk in a terminal (pid ${process.pid})`,
    });
  let end: AttachEnd;
  try {
    end = await attach(socket);
  } catch (e) {
    // The session we found was on its way out (its CLI had just exited): start it afresh (the PTY
    // server waits for the old one's records first).
    if (!(e instanceof KlaudeError && e.code === 'E_IO') || hostPid === null) throw e;
    end = await attach(await start());
  }
  const keyHint = detachKey ? `${detachKey.label} or ///detach` : '///detach';
  switch (end.reason) {
    case 'detached':
    case 'signal':
      stderr.write(
        o.view
          ? `klaude: stopped watching ${s}\n`
          : `klaude: detached from ${s}, which keeps running; \`klaude talk ${s}\` returns${
              end.reason === 'detached' && end.by === 'suspend'
                ? ' (Ctrl-Z detaches: a PTY session cannot be suspended)'
                : ` (${keyHint} detaches)`
            }\n`,
      );
      return end.reason === 'signal' ? 128 + (end.signal === 'SIGHUP' ? 1 : end.signal === 'SIGINT' ? 2 : 15) : 0;
    case 'exited': {
      const how = end.exit.signal ? `signal ${end.exit.signal}` : `code ${end.exit.exitCode}`;
      stderr.write(`klaude: ${s}'s ${session.runtime} exited (${how}); \`klaude talk ${s}\` resumes it\n`);
      return o.view ? 0 : end.exit.signal ? 128 + end.exit.signal : (end.exit.exitCode ?? 0);
    }
    case 'lost':
      stderr.write(
        `klaude: lost the connection to ${s}'s PTY session [E_IO] — hint: \`klaude talk ${s}\` to try again\n`,
      );
      return 1;
  }
}

/**
 * The dashboard's talk key: put the terminal through to a session's PTY (the `klaude talk` parts:
 * planTalk, spawnPtyHost, attachTerminal) between the dashboard's own suspend and resume. The PTY
 * session keeps running after the person detaches (Ctrl-], Ctrl-Z or `///detach`); the dashboard
 * comes back exactly as it was (its state lives in the stores).
 *
 * Loaded on the first press of the key (it brings the PTY client and the detach matcher).
 */
import { loadConfig } from '../config/config.js';
import { shortId } from '../core/ids.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { KlaudeError } from '../lib/errors.js';
import { attachTerminal, type AttachEnd } from '../pty/attach.js';
import { parseDetachKey } from '../pty/detach.js';
import { spawnPtyHost } from '../pty/launch.js';
import { ptySocketPath } from '../ptyd/socket-path.js';
import { planTalk } from '../pty/talk-session.js';

export interface DashboardTalkOptions {
  home: string;
  sessionId: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  inv: KlaudeInvocation;
  stdin: NodeJS.ReadStream;
  stdout: NodeJS.WriteStream;
  /** The dashboard's one suspend/resume path. */
  suspend(): void;
  resume(): void;
  /** The terminal is attached (for notifications: this session is in front). */
  onAttached?(sessionId: string): void;
}

export interface TalkOutcome {
  ok: boolean;
  message: string;
}

export async function talkFromDashboard(o: DashboardTalkOptions): Promise<TalkOutcome> {
  const detachKey = parseDetachKey(loadConfig(o.home).config['talk.detachKey']);
  // Refusals (busy elsewhere, unknown session) come before the dashboard lets go of the terminal.
  const { session, hostPid } = planTalk(o.home, o.sessionId, o.cwd);
  const s = shortId(session.id);
  const size = { cols: o.stdout.columns || 80, rows: o.stdout.rows || 24 };
  const start = async (): Promise<string> =>
    (await spawnPtyHost({ home: o.home, sessionId: session.id, inv: o.inv, env: o.env, cwd: o.cwd, size })).socket;
  let socket = hostPid === null ? await start() : ptySocketPath(o.home, session.projectId, session.id, o.env);
  const attach = (socketPath: string): Promise<AttachEnd> =>
    attachTerminal({
      socketPath,
      mode: 'control',
      who: `klaude ui in a terminal (pid ${process.pid})`,
      detachKey,
      stdin: o.stdin,
      stdout: o.stdout,
      onWelcome: () => o.onAttached?.(session.id),
    });

  o.suspend();
  let end: AttachEnd;
  try {
    try {
      end = await attach(socket);
    } catch (e) {
      // The session we found was on its way out (its CLI had just exited): start it afresh.
      if (!(e instanceof KlaudeError && e.code === 'E_IO') || hostPid === null) throw e;
      socket = await start();
      end = await attach(socket);
    }
  } finally {
    o.resume();
  }
  const keys = detachKey ? `${detachKey.label} or ///detach` : '///detach';
  switch (end.reason) {
    case 'detached':
    case 'signal':
      return {
        ok: true,
        message: `detached from ${s}: it keeps running in its PTY (t talks again, ${keys} detaches; v switches screen/log)`,
      };
    case 'exited': {
      const how = end.exit.signal ? `signal ${end.exit.signal}` : `code ${end.exit.exitCode}`;
      return { ok: true, message: `${s}'s ${session.runtime} exited (${how}); t starts it again` };
    }
    case 'lost':
      return { ok: false, message: `lost the connection to ${s}'s PTY session [E_IO]; t tries again` };
  }
}

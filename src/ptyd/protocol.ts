/**
 * The PTY server's control socket, `<runDir>/ptyd-<version>.sock` (0600 in the 0700 run dir): one
 * JSON request line per connection, one JSON reply line, then the server hangs up. The version is
 * in the name: after an upgrade that changes these requests, the new klaude starts its own server
 * beside the old one, which keeps its sessions (still attachable: their sockets speak the PTY
 * protocol, framing.ts) and exits after its last.
 *
 *   {op:'host', sessionId, projectId, file, args, cwd, env, nativeId, mode, cols, rows, starterPid}
 *                                                            → HostReady ({ok, pid, hostPid, socket} | {error})
 *   {op:'stop', sessionId}                                   → {ok, stopped}  (SIGTERM to that CLI only)
 *   {op:'list'}                                              → {ok, pid, sessions}
 *
 * The starter works out the command line and its environment (pty/prepare.ts: the starter's own env
 * with klaude's KLAUDE_* and PATH shim, so HOME, PATH, ANTHROPIC_*… are the starter's, not the
 * server's); `starterPid` holds the session's conversation claim and hands it over.
 */
import path from 'node:path';
import { runDir } from '../config/paths.js';
import { KlaudeError, type ErrorCode } from '../lib/errors.js';
import { lineStream, SocketClient } from '../lib/socket-client.js';

export interface WireErr {
  code: string;
  message: string;
  hint?: string;
}

/** What a host request answers (and, historically, the one line a PTY host printed). */
export type HostReady = { ok: true; pid: number; hostPid: number; socket: string } | { ok: false; error: WireErr };

export interface HostRequest {
  op: 'host';
  sessionId: string;
  projectId: string;
  /** The CLI and its arguments, run in `cwd` with exactly `env`. */
  file: string;
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The runtime's own session id (for the pty.start event) and whether it is resumed. */
  nativeId: string;
  mode: 'resume' | 'new';
  cols: number;
  rows: number;
  starterPid: number;
}
export type ServerRequest = HostRequest | { op: 'stop'; sessionId: string } | { op: 'list' };

export type StopReply = { ok: true; stopped: boolean } | { ok: false; error: WireErr };
export type ListReply = { ok: true; pid: number; sessions: string[] } | { ok: false; error: WireErr };

/** Not an error a caller sees: nobody listens (start a server), or the one there is closing. */
export const NO_SERVER = 'no PTY server';
/** The server's reply when it is on its way out (idle, or stopping): start another. */
export const CLOSING_CODE = 'E_PTYD_CLOSING';
/** The server's ready-line error when another server already listens: not a failure. */
export const RUNNING_CODE = 'E_PTYD_RUNNING';

/** Change it whenever a request or reply below changes shape. */
export const PTY_SERVER_PROTOCOL = 1;

export function ptyServerSocketPath(home: string, env: NodeJS.ProcessEnv = process.env): string {
  return path.join(runDir(home, env), `ptyd-${PTY_SERVER_PROTOCOL}.sock`);
}

export function toKlaudeError(e: WireErr): KlaudeError {
  return new KlaudeError(e.code as ErrorCode, e.message, e.hint ? { hint: e.hint } : {});
}

/** Nothing listens there (any more): start a server. */
const isGone = (err: NodeJS.ErrnoException): boolean =>
  err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET' || err.code === 'EPIPE';

/** The reply line settles the request, except a closing server's: that one means "no server". */
function settleReply<R>(client: SocketClient<string, R>, line: string): void {
  let reply: { ok: boolean; error?: WireErr };
  try {
    reply = JSON.parse(line) as { ok: boolean; error?: WireErr };
  } catch {
    client.fail(new KlaudeError('E_PROTOCOL', 'the PTY server said something unexpected'));
    return;
  }
  if (!reply.ok && reply.error?.code === CLOSING_CODE) {
    client.fail(new Error(NO_SERVER));
    return;
  }
  client.settle(reply as R);
  client.close();
}

/**
 * Send one request and read the reply line. Rejects with `Error(NO_SERVER)` when nothing listens
 * (or the server closed the connection without a reply, or said it is closing), E_TIMEOUT when no
 * reply comes within `timeoutMs`.
 */
export async function serverRequest<R>(socketPath: string, req: ServerRequest, timeoutMs: number): Promise<R> {
  const client = new SocketClient<string, R>({
    socketPath,
    timeoutMs,
    decoder: lineStream(),
    errors: {
      timeout: () => new KlaudeError('E_TIMEOUT', `the PTY server did not answer ${req.op} in time`),
      socket: (err) => (isGone(err) ? new Error(NO_SERVER) : err),
      closed: () => new Error(NO_SERVER),
    },
    onConnect: (c) => c.write(`${JSON.stringify(req)}\n`),
    onMessage: (line, c) => settleReply(c, line),
  });
  return client.answer;
}

export const isNoServer = (e: unknown): boolean => e instanceof Error && e.message === NO_SERVER;

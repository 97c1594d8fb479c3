/**
 * Starting a PTY session: ask the user's PTY server (one per KLAUDE_HOME run dir, tmux's model:
 * ptyd/server.ts) to host it, starting the server when none answers.
 *
 * The server is `node <klaude cli> __ptyd`, detached (own session and process group: it outlives
 * the terminal and whoever started it). Its stdout is a pipe only until its one ready line
 * ({ok, pid} once it listens, or {error}; E_PTYD_RUNNING when another starter's server won the
 * race for the socket): the starter reads that line and lets go, so no polling for the socket.
 * stderr goes to klaude's log file. Then the host request goes over the control socket.
 */
import { logFilePath } from '../config/paths.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { KlaudeError } from '../lib/errors.js';
import { startDetachedServer } from '../lib/detached-server.js';
import type { Size } from '../ptyd/framing.js';
import { openDb } from '../db/client.js';
import { withPreparedRequest } from './prepare.js';
import {
  isNoServer,
  ptyServerSocketPath,
  RUNNING_CODE,
  serverRequest,
  toKlaudeError,
  type HostReady,
  type HostRequest,
  type ListReply,
  type StopReply,
  type WireErr,
} from '../ptyd/protocol.js';

export type { HostReady } from '../ptyd/protocol.js';

export const PTY_SERVER_COMMAND = '__ptyd';

/**
 * V8 flags for the server: it lives as long as its sessions and mostly moves bytes from PTYs to
 * sockets through headless terminals, so a small young generation (1 MiB semi-spaces instead of
 * up to 16) keeps it from holding megabytes of garbage between scavenges while a CLI streams.
 * Single-threaded V8 (no background compile or GC threads): each such thread grows its own malloc
 * arena, about 2 MiB of the server's memory; with a heap this small the work they took off the
 * main thread is short (parsing 4.5 MiB of terminal output was faster without them on 2 cores).
 * It keeps V8's optimizing compiler, though its machine code (part of the node binary) is 3.3 MiB
 * of the server's RSS once used: on baseline code alone (`--max-opt=1`, as the dashboard runs)
 * xterm's parser took ten times the CPU (5.7 MiB of a TUI's output: 4.1–4.6 s against 0.3–0.4 s).
 */
export const PTY_HOST_NODE_FLAGS = ['--max-semi-space-size=1', '--single-threaded'];

export interface SpawnPtyHostOptions {
  home: string;
  sessionId: string;
  inv: KlaudeInvocation;
  env: NodeJS.ProcessEnv;
  cwd: string;
  size: Size;
  timeoutMs?: number;
}

export interface StartedHost {
  /** The CLI's pid. */
  pid: number;
  /** The PTY server's pid (it hosts other sessions too: never signal it to stop one). */
  hostPid: number;
  socket: string;
}

/** Have the PTY server run the session (an already hosted one is answered as is). */
export async function spawnPtyHost(o: SpawnPtyHostOptions): Promise<StartedHost> {
  const db = openDb(o.home);
  try {
    return await withPreparedRequest(db, o, (req) => askServer(o, req));
  } finally {
    db.close();
  }
}

async function askServer(o: SpawnPtyHostOptions, req: HostRequest): Promise<StartedHost> {
  const env = { ...o.env, KLAUDE_HOME: o.home };
  const socket = ptyServerSocketPath(o.home, env);
  for (let attempt = 0; ; attempt++) {
    try {
      const r = await serverRequest<HostReady>(socket, req, o.timeoutMs ?? 15_000);
      if (!r.ok) throw toKlaudeError(r.error);
      return { pid: r.pid, hostPid: r.hostPid, socket: r.socket };
    } catch (e) {
      if (!isNoServer(e)) throw e;
      // The server was closing (its last session had just ended) or is not there: start one.
      if (attempt >= 3)
        throw new KlaudeError('E_IO', 'could not reach the PTY server', { hint: `see ${logFilePath(o.home)}` });
    }
    await startServer(o.inv, o.home, env, o.timeoutMs ?? 15_000);
  }
}

/** Ask the server to stop one session's CLI (SIGTERM, SIGKILL after a grace). False: it does not host it (or no server). */
export async function stopPtySession(
  home: string,
  sessionId: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<boolean> {
  try {
    const r = await serverRequest<StopReply>(ptyServerSocketPath(home, env), { op: 'stop', sessionId }, 5000);
    if (!r.ok) throw toKlaudeError(r.error);
    return r.stopped;
  } catch (e) {
    if (isNoServer(e)) return false;
    throw e;
  }
}

/** The server's pid and the sessions it hosts; null when no server runs. */
export async function listPtyServer(
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<{ pid: number; sessions: string[] } | null> {
  try {
    const r = await serverRequest<ListReply>(ptyServerSocketPath(home, env), { op: 'list' }, 5000);
    if (!r.ok) throw toKlaudeError(r.error);
    return { pid: r.pid, sessions: r.sessions };
  } catch (e) {
    if (isNoServer(e)) return null;
    throw e;
  }
}

/** Start a server and wait for its ready line (a server that lost the race to another is fine too). */
async function startServer(
  inv: KlaudeInvocation,
  home: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<void> {
  const r = (await startDetachedServer({
    node: inv.node,
    args: [...PTY_HOST_NODE_FLAGS, inv.cli, PTY_SERVER_COMMAND],
    env,
    logFile: logFilePath(home),
    name: 'the PTY server',
    timeoutMs,
  })) as { ok: boolean; error?: WireErr };
  if (!r.ok && r.error?.code !== RUNNING_CODE) throw toKlaudeError(r.error!);
}

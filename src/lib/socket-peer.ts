/**
 * Which process is at the other end of an accepted connection. Node exposes no SO_PEERCRED, so on
 * Linux the kernel is asked through `ss` (sock_diag):
 * - a Unix socket (`ss -xp`): the connection's own inode comes from /proc/self/fd/<fd>, and the
 *   line whose peer is that inode names the client's pid;
 * - a TCP connection (`ss -tp`, the web server's sign-in): the line whose local address is the
 *   connection's remote one names the client's pid, when the client runs on this machine.
 * Three answers, which callers must keep apart: the pid; `gone` (asked, and no process holds the
 * other end: a client that wrote and hung up at once, or one on another machine); `cannot-ask`
 * (no /proc or no `ss` here: macOS, the BSDs, a minimal container). Tests hide either source with
 * their own `PeerSource`, as lib/process.ts's StartSource does for start times.
 * Costs one `ss` run (~25 ms); used only where the sender's identity decides something.
 */
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import type { Socket } from 'node:net';

/** Where the peer is asked: the proc root (for a socket's inode) and the `ss` binary. */
export interface PeerSource {
  procRoot: string;
  ss: string;
}

export const SYSTEM_PEER_SOURCE: PeerSource = Object.freeze({ procRoot: '/proc', ss: 'ss' });

export type Peer =
  | { pid: number }
  | {
      pid: null;
      /** `gone`: asked, nobody holds the other end now; `cannot-ask`: this system cannot be asked. */
      reason: 'gone' | 'cannot-ask';
    };

const GONE: Peer = { pid: null, reason: 'gone' };
const CANNOT_ASK: Peer = { pid: null, reason: 'cannot-ask' };

/** The connection's file descriptor (libuv keeps it on the handle; undefined where it does not). */
function socketFd(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** `ss` with these arguments; null when it cannot be run (missing, killed, failed). */
function runSs(src: PeerSource, args: string[]): string | null {
  try {
    return execFileSync(src.ss, args, {
      encoding: 'utf8',
      env: { PATH: '/usr/sbin:/sbin:/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
  } catch {
    return null;
  }
}

/** Who is at the other end of an accepted Unix-socket connection. */
export function unixSocketPeer(socket: Socket, src: PeerSource = SYSTEM_PEER_SOURCE): Peer {
  const fd = socketFd(socket);
  // A destroyed socket has no fd: its client hung up (or we did) before it could be asked.
  if (fd === undefined) return socket.destroyed ? GONE : CANNOT_ASK;
  let link: string;
  try {
    link = readlinkSync(`${src.procRoot}/self/fd/${fd}`);
  } catch {
    return CANNOT_ASK;
  }
  const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
  if (!inode) return CANNOT_ASK;
  const out = runSs(src, ['-xpnH']);
  if (out === null) return CANNOT_ASK;
  const pid = peerPidFromSs(out, inode);
  return pid === null ? GONE : { pid };
}

/**
 * In `ss -xpnH` output, the pid holding the socket whose peer is `inode`. Lines read
 * `u_str ESTAB 0 0 <local> <inode> <peer-addr> <peer-inode> users:(("node",pid=12,fd=20))`.
 */
export function peerPidFromSs(out: string, inode: string): number | null {
  for (const line of out.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 8 || f[7] !== inode || f[5] === inode) continue;
    const pid = /pid=(\d+)/.exec(line)?.[1];
    if (pid) return Number(pid);
  }
  return null;
}

/** `127.0.0.1`, `::1`, `::ffff:127.0.0.1` and `[…]` forms, as one spelling. */
function plainAddress(a: string): string {
  return a
    .replace(/^\[|\]$/g, '')
    .replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1')
    .toLowerCase();
}

function splitEndpoint(e: string): { addr: string; port: string } | null {
  const m = /^(.*):(\d+)$/.exec(e);
  return m ? { addr: plainAddress(m[1]!), port: m[2]! } : null;
}

/**
 * In `ss -tpnH` output, the pid holding the end `client` of a connection whose other end is
 * `server`. Lines read `ESTAB 0 0 127.0.0.1:58166 127.0.0.1:7878 users:(("curl",pid=12,fd=5))`.
 */
export function tcpPeerPidFromSs(
  out: string,
  client: { addr: string; port: number },
  server: { addr: string; port: number },
): number | null {
  const want = (e: { addr: string; port: number }) => ({ addr: plainAddress(e.addr), port: String(e.port) });
  const c = want(client);
  const s = want(server);
  for (const line of out.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 6) continue;
    const local = splitEndpoint(f[3]!);
    const peer = splitEndpoint(f[4]!);
    if (!local || !peer || local.port !== c.port || peer.port !== s.port) continue;
    if (local.addr !== c.addr || peer.addr !== s.addr) continue;
    const pid = /pid=(\d+)/.exec(line)?.[1];
    if (pid) return Number(pid);
  }
  return null;
}

/** Who is at the other end of an accepted TCP connection (`gone` for a client on another machine). */
export function tcpSocketPeer(socket: Socket, src: PeerSource = SYSTEM_PEER_SOURCE): Peer {
  const { remoteAddress, remotePort, localAddress, localPort } = socket;
  if (!remoteAddress || !remotePort || !localAddress || !localPort) return GONE;
  const out = runSs(src, ['-tpnH', `sport = :${remotePort}`]);
  if (out === null) return CANNOT_ASK;
  const pid = tcpPeerPidFromSs(out, { addr: remoteAddress, port: remotePort }, { addr: localAddress, port: localPort });
  return pid === null ? GONE : { pid };
}

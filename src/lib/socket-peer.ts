/**
 * Which process is at the other end of an accepted Unix-socket connection. Node exposes no
 * SO_PEERCRED, so on Linux the kernel is asked through `ss -xp` (sock_diag): the connection's own
 * inode comes from /proc/self/fd/<fd>, and the line whose peer is that inode names the client's
 * pid. Elsewhere (no /proc, no ss) the answer is null: the caller treats the peer as unknown.
 * Costs one `ss` run (~25 ms); used only for answers that need the sender's identity.
 */
import { execFileSync } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import type { Socket } from 'node:net';

/** The connection's file descriptor (libuv keeps it on the handle; undefined where it does not). */
function socketFd(socket: Socket): number | undefined {
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

function socketInode(fd: number): string | null {
  try {
    return /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/self/fd/${fd}`))?.[1] ?? null;
  } catch {
    return null;
  }
}

/** The pid on the other end of `socket`, or null when it cannot be told. */
export function socketPeerPid(socket: Socket): number | null {
  const fd = socketFd(socket);
  const inode = fd === undefined ? null : socketInode(fd);
  if (!inode) return null;
  let out: string;
  try {
    out = execFileSync('ss', ['-xpnH'], {
      encoding: 'utf8',
      env: { PATH: '/usr/sbin:/sbin:/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
  } catch {
    return null;
  }
  return peerPidFromSs(out, inode);
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

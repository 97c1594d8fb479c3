/**
 * The link's socket (`<run>/zones/<zone>.sock`, 0600 in a 0700 directory): one request line, one
 * reply line (zone-client/link-protocol.ts). Listening is the lock — one link per zone and home — as for
 * the PTY server (ptyd/server.ts). Who sent a request is asked of the kernel (lib/socket-peer.ts):
 * an answer to a permission request counts only from the person.
 */
import { statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import {
  checkSocketPathLength,
  listenPrivate,
  preparePrivateSocketDir,
  probeSocket,
  unlinkOwnSocket,
} from '../control/socket-file.js';
import { KlaudeError } from '../lib/errors.js';
import { LineDecoder } from '../lib/line-decoder.js';
import { unixSocketPeer, type Peer } from '../lib/socket-peer.js';
import type { LinkReply, LinkRequest } from '../zone-client/link-protocol.js';

export interface LinkServer {
  close(): void;
  /** Connections open now. */
  connections(): number;
}

function inoOf(file: string): number | null {
  try {
    return statSync(file).ino;
  } catch {
    return null;
  }
}

type Handler = (req: LinkRequest, peer: Peer | null) => Promise<unknown>;

/** 'running': another link of this zone listens already. */
export async function listenLink(socketPath: string, handle: Handler): Promise<LinkServer | 'running'> {
  checkSocketPathLength(socketPath);
  preparePrivateSocketDir(socketPath);
  for (let attempt = 0; attempt < 2; attempt++) {
    let open = 0;
    const server = net.createServer((sock) => {
      open++;
      sock.once('close', () => open--);
      serveOne(sock, handle);
    });
    try {
      const ino = await listenPrivate(server, socketPath);
      return {
        close: () => {
          server.close();
          unlinkOwnSocket(socketPath, ino);
        },
        connections: () => open,
      };
    } catch (e) {
      if (((e as Error).cause as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') throw e;
    }
    const ino = inoOf(socketPath);
    if ((await probeSocket(socketPath)) !== 'stale') return 'running';
    if (ino !== null && inoOf(socketPath) === ino) {
      try {
        unlinkSync(socketPath); // left by a link that died; not one a racing link just made
      } catch {
        /* gone already */
      }
    }
  }
  return 'running';
}

function serveOne(sock: net.Socket, handle: Handler): void {
  const decoder = new LineDecoder(1024 * 1024);
  let taken = false;
  const reply = (r: LinkReply): void => void sock.end(`${JSON.stringify(r)}\n`);
  sock.on('error', () => undefined); // a client that went away: nothing to answer
  sock.on('data', (chunk: Buffer) => {
    const { lines, overflow } = decoder.push(chunk);
    if (taken || (lines.length === 0 && !overflow)) return;
    taken = true;
    if (overflow) return reply({ ok: false, error: { code: 'E_BAD_REQUEST', message: 'request too large' } });
    let req: LinkRequest;
    try {
      req = JSON.parse(lines[0]!) as LinkRequest;
    } catch {
      return reply({ ok: false, error: { code: 'E_BAD_REQUEST', message: 'not a JSON request' } });
    }
    const peer = req.op === 'answer' ? unixSocketPeer(sock) : null;
    handle(req, peer).then(
      (result) => reply({ ok: true, result: result ?? null }),
      (e: unknown) =>
        reply({
          ok: false,
          error:
            e instanceof KlaudeError
              ? e.toJSON()
              : { code: 'E_INTERNAL', message: e instanceof Error ? e.message : String(e) },
        }),
    );
  });
}

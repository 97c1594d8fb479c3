// The process at the other end of a connection, asked of the kernel (ss), not of the client: its
// pid; `gone` when it hung up before it could be asked; `cannot-ask` where /proc or ss is missing
// (macOS, the BSDs, a minimal container), which tests stand for by hiding either.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tcpSocketPeer, unixSocketPeer, type Peer, type PeerSource } from '../../src/lib/socket-peer.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  home?.cleanup();
  home = undefined;
});

const HIDE_SS: PeerSource = { procRoot: '/proc', ss: '/nonexistent/ss' };
const hideProc = (): PeerSource => ({ procRoot: path.join(home!.root, 'no-proc'), ss: 'ss' });

/**
 * A server whose first connection is asked, on its first data, who is at the other end. Nothing
 * is read until `read` is called (pauseOnConnect), so a test decides what the client has done by then.
 */
function serve(
  listen: (s: net.Server) => void,
  ask: (c: net.Socket) => Peer,
): Promise<{ server: net.Server; peer: Promise<Peer>; read: () => void }> {
  let resolvePeer: (p: Peer) => void;
  const peer = new Promise<Peer>((r) => (resolvePeer = r));
  let resume: () => void = () => undefined;
  let wanted = false;
  const server = net.createServer({ allowHalfOpen: true, pauseOnConnect: true }, (c) => {
    c.once('data', () => {
      resolvePeer(ask(c));
      c.end();
    });
    resume = () => c.resume();
    if (wanted) resume();
  });
  const read = (): void => {
    wanted = true;
    resume();
  };
  return new Promise((resolve) => {
    server.once('listening', () => resolve({ server, peer, read }));
    listen(server);
  });
}

/** A node process that connects, writes, and waits for the server to close (or, `hangUp`, exits at once). */
function client(target: string | number, hangUp = false): ChildProcess {
  const addr = typeof target === 'number' ? `{ port: ${target}, host: '127.0.0.1' }` : JSON.stringify(target);
  const act = hangUp ? `s.write('x', () => process.exit(0))` : `s.write('x')`;
  const c = spawn(
    process.execPath,
    ['-e', `const s = require('net').connect(${addr}, () => { ${act} }); s.on('close', () => process.exit(0));`],
    { stdio: 'ignore' },
  );
  children.push(c);
  return c;
}

async function unixCase(src?: PeerSource, hangUp = false): Promise<{ peer: Peer; pid: number }> {
  home ??= makeTempHome({ prefix: 'klaude-peer-' });
  const sock = path.join(home.root, `p${Math.random().toString(36).slice(2, 8)}.sock`);
  const { server, peer, read } = await serve(
    (s) => s.listen(sock),
    (c) => unixSocketPeer(c, src),
  );
  try {
    const c = client(sock, hangUp);
    // A client that hangs up is gone before its data is read (as a runtime busy elsewhere would find it).
    if (hangUp) await new Promise((r) => c.once('exit', r));
    read();
    return { peer: await peer, pid: c.pid! };
  } finally {
    server.close();
  }
}

describe('unixSocketPeer', () => {
  it('names the connecting process: another process, not this one', async () => {
    const { peer, pid } = await unixCase();
    expect(peer).toEqual({ pid });
  });

  it('a client that wrote and hung up is gone, never a pid', async () => {
    const { peer } = await unixCase(undefined, true);
    expect(peer).toEqual({ pid: null, reason: 'gone' });
  });

  it('without ss, or without /proc, the peer cannot be asked', async () => {
    expect((await unixCase(HIDE_SS)).peer).toEqual({ pid: null, reason: 'cannot-ask' });
    home ??= makeTempHome({ prefix: 'klaude-peer-' });
    expect((await unixCase(hideProc())).peer).toEqual({ pid: null, reason: 'cannot-ask' });
  });
});

describe('tcpSocketPeer', () => {
  async function tcpCase(src?: PeerSource): Promise<{ peer: Peer; pid: number }> {
    const { server, peer, read } = await serve(
      (s) => s.listen(0, '127.0.0.1'),
      (c) => tcpSocketPeer(c, src),
    );
    try {
      const c = client((server.address() as net.AddressInfo).port);
      read();
      return { peer: await peer, pid: c.pid! };
    } finally {
      server.close();
    }
  }

  it('names a local client by its end of the connection', async () => {
    const { peer, pid } = await tcpCase();
    expect(peer).toEqual({ pid });
  });

  it('without ss, the peer cannot be asked', async () => {
    expect((await tcpCase(HIDE_SS)).peer).toEqual({ pid: null, reason: 'cannot-ask' });
  });
});

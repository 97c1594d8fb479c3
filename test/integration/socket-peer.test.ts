// The pid at the other end of a Unix-socket connection, asked of the kernel (ss -xp), not of the client.
import { spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { socketPeerPid } from '../../src/lib/socket-peer.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

function serve(sock: string): Promise<{ server: net.Server; peer: Promise<number | null> }> {
  let resolvePeer: (p: number | null) => void;
  const peer = new Promise<number | null>((r) => (resolvePeer = r));
  const server = net.createServer((c) => {
    resolvePeer(socketPeerPid(c));
    c.end();
  });
  return new Promise((resolve) => server.listen(sock, () => resolve({ server, peer })));
}

describe('socketPeerPid', () => {
  it('names the connecting process: another process, not this one', async () => {
    home = makeTempHome({ prefix: 'klaude-peer-' });
    const sock = path.join(home.root, 'p.sock');
    const { server, peer } = await serve(sock);
    const child = spawn(
      process.execPath,
      ['-e', `require('net').connect(${JSON.stringify(sock)}).on('close', () => process.exit(0))`],
      { stdio: 'ignore' },
    );
    try {
      expect(await peer).toBe(child.pid);
    } finally {
      child.kill();
      server.close();
    }
  });
});

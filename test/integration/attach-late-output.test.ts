// A terminal attached to a PTY session (pty/attach.ts) and detached: output the host had already
// sent when the detach went out still arrives on the socket, and must not reach the terminal —
// the dashboard's talk key hands the terminal back to the dashboard the moment the attachment ends,
// and a late redraw of the session landed on the dashboard's screen.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { attachTerminal } from '../../src/pty/attach.js';
import { parseDetachKey } from '../../src/pty/detach.js';
import { encodeFrame, FRAME, FrameDecoder, type Welcome } from '../../src/ptyd/framing.js';

let dir: string | null = null;
let server: Server | null = null;
afterEach(() => {
  server?.close();
  server = null;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = null;
});

/** A host that welcomes, shows a screen, and answers a detach with more output before it closes. */
function lateHost(socketPath: string): Promise<void> {
  server = createServer((sock: Socket) => {
    const frames = new FrameDecoder();
    sock.on('data', (chunk) => {
      for (const f of frames.push(chunk)) {
        if (f.type === FRAME.hello) {
          const w: Welcome = { v: 1, sessionId: 's', pid: 1, hostPid: 1, cols: 80, rows: 24, mode: 'control' };
          sock.write(encodeFrame(FRAME.welcome, w));
          sock.write(encodeFrame(FRAME.screen, Buffer.from('SCREEN-BEFORE')));
        } else if (f.type === FRAME.detach) {
          sock.write(encodeFrame(FRAME.output, Buffer.from('LATE-OUTPUT')));
          setTimeout(() => sock.end(), 50);
        }
      }
    });
  });
  return new Promise((resolve) => server!.listen(socketPath, resolve));
}

describe('a detached terminal', () => {
  it('gets no output the host sends after the detach', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'klaude-attach-'));
    const socketPath = path.join(dir, 'pty.sock');
    await lateHost(socketPath);
    const stdin = new PassThrough() as unknown as NodeJS.ReadStream;
    let written = '';
    const stdout = new Writable({
      write(chunk: Buffer, _enc, done) {
        written += chunk.toString('latin1');
        done();
      },
    }) as unknown as NodeJS.WriteStream;
    const ended = attachTerminal({ socketPath, mode: 'control', detachKey: parseDetachKey('ctrl-]'), stdin, stdout });
    const deadline = Date.now() + 10_000;
    while (!written.includes('SCREEN-BEFORE')) {
      if (Date.now() > deadline) throw new Error(`no screen: ${JSON.stringify(written)}`);
      await new Promise((r) => setTimeout(r, 10));
    }
    (stdin as unknown as PassThrough).write(Buffer.from([0x1d])); // Ctrl-]
    expect(await ended).toMatchObject({ reason: 'detached' });
    // The host's late output has had time to arrive (it closes 50 ms after it).
    await new Promise((r) => setTimeout(r, 300));
    expect(written).not.toContain('LATE-OUTPUT');
  });
});

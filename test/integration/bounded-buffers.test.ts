// Bounded memory: a PTY host stops reading its PTY while the controller's socket is backed up
// (Ctrl-S, slow SSH) and reads again on drain; the control server serves a capped number of
// connections at once and answers one more with an error frame.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { controlRequest } from '../../src/control/client.js';
import { startControlServer, type ControlServer } from '../../src/control/server.js';
import { nullLogger } from '../../src/lib/logger.js';
import { encodeFrame, FRAME, PTY_PROTOCOL_VERSION } from '../../src/ptyd/framing.js';
import { PtyHost } from '../../src/ptyd/host.js';
import { spawnInPty, type PtyChild } from '../../src/ptyd/pty-process.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { until } from '../support/until.js';

const dirs: string[] = [];
const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tmp = (): string => {
  const d = mkdtempSync('/tmp/kb-');
  dirs.push(d);
  return d;
};

describe('PTY host with a lagging controller', () => {
  it('pauses the PTY while the controller is backed up and resumes on drain; its backlog stays bounded', async () => {
    const dir = tmp();
    // A CLI that writes as fast as it can, for ever.
    const child: PtyChild = spawnInPty(
      '/bin/sh',
      ['-c', 'while :; do echo 0123456789012345678901234567890123456789012345678901234567890123456789; done'],
      {
        cols: 80,
        rows: 24,
        cwd: dir,
        env: { PATH: process.env.PATH },
      },
    );
    const screen = new HeadlessScreen({ cols: 80, rows: 24 });
    const host = new PtyHost({
      sessionId: 's1',
      socketPath: path.join(dir, 'run', 'h.sock'),
      child,
      screen,
      log: nullLogger,
    });
    cleanups.push(() => {
      child.kill('SIGKILL');
      screen.dispose();
    });
    await host.listen();

    const sock = net.createConnection(path.join(dir, 'run', 'h.sock'));
    cleanups.push(() => void sock.destroy());
    await new Promise((r) => sock.once('connect', r));
    sock.write(encodeFrame(FRAME.hello, { v: PTY_PROTOCOL_VERSION, mode: 'control', cols: 80, rows: 24 }));
    let received = 0;
    sock.on('data', (d: Buffer) => (received += d.length));
    await until('output to flow', () => received > 64 * 1024);
    sock.pause(); // the person pressed Ctrl-S: nothing is read any more

    await until('the host to pause the PTY', () => host.outputPaused);
    const hostSide = (): number =>
      [...(host as unknown as { clients: Set<{ sock: net.Socket }> }).clients].reduce(
        (n, c) => n + c.sock.writableLength,
        0,
      );
    const atPause = hostSide();
    await new Promise((r) => setTimeout(r, 1500)); // the CLI keeps trying to write meanwhile
    expect(host.outputPaused).toBe(true);
    expect(hostSide()).toBeLessThanOrEqual(atPause + 256 * 1024); // not growing: the CLI is blocked
    expect(hostSide()).toBeLessThan(8 * 1024 * 1024);

    const before = received;
    sock.resume();
    await until('the host to read the PTY again', () => !host.outputPaused && received > before + 256 * 1024);
  });
});

describe('control server connection cap', () => {
  it('answers a connection over the cap with one error frame and serves again once one closes', async () => {
    const dir = tmp();
    const socketPath = path.join(dir, 'run', 'c.sock');
    const server: ControlServer = await startControlServer({
      socketPath,
      maxConnections: 3,
      handlers: { ping: () => ({ pong: true, instanceId: 'i', pid: process.pid, version: '0', protocol: 1 }) },
    });
    cleanups.push(() => server.close());
    const idle: net.Socket[] = [];
    for (let i = 0; i < 3; i++) {
      const s = net.createConnection(socketPath);
      s.on('error', () => undefined);
      await new Promise((r) => s.once('connect', r));
      idle.push(s);
    }
    cleanups.push(() => idle.forEach((s) => s.destroy()));
    await until('3 connections', () => server.connections() === 3);

    const extra = net.createConnection(socketPath);
    let text = '';
    extra.on('data', (d: Buffer) => (text += d.toString()));
    await new Promise((r) => extra.once('close', r));
    expect(JSON.parse(text.trim())).toMatchObject({
      ok: false,
      error: { code: 'E_IO', message: expect.stringMatching(/serving 3 connections/) },
    });
    expect(server.connections()).toBe(3);
    const refused = await controlRequest(socketPath, 'ping', {}).catch((e: unknown) => e);
    expect(refused).toMatchObject({ code: 'E_IO' });

    idle[0]!.destroy();
    await until('a slot to free up', () => server.connections() === 2);
    expect(await controlRequest(socketPath, 'ping', {})).toMatchObject({ pong: true });
  });
});

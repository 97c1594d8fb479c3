import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { KlaudeError } from '../../src/lib/errors.js';
import { controlRequest, controlSubscribe } from '../../src/control/client.js';
import { startControlServer, type ControlHandlers, type ControlServer } from '../../src/control/server.js';
import type { ControlEvent, StatusResult } from '../../src/control/protocol.js';

// ── helpers ────────────────────────────────────────────────────────────────

const dirs: string[] = [];
const servers: ControlServer[] = [];

/** A fresh socket path in a short temp dir (Unix socket paths are limited to ~104 bytes). */
function tmpSocket(name = 'sup'): string {
  const dir = fs.mkdtempSync('/tmp/kc-');
  dirs.push(dir);
  return path.join(dir, 'run', `${name}.sock`);
}

const ping: ControlHandlers['ping'] = () => ({
  pong: true,
  instanceId: 'inst-1',
  pid: process.pid,
  version: '0.1.0',
  protocol: 1,
});

async function serve(
  handlers: ControlHandlers = { ping },
  extra: { socketPath?: string; maxFrameBytes?: number; maxSubscriberBufferBytes?: number } = {},
): Promise<ControlServer> {
  const server = await startControlServer({ socketPath: extra.socketPath ?? tmpSocket(), handlers, ...extra });
  servers.push(server);
  return server;
}

/** A raw NDJSON connection for sending hand-made lines. */
function rawConnection(socketPath: string) {
  const socket = net.createConnection(socketPath);
  const frames: any[] = [];
  const waiters: Array<() => void> = [];
  let buf = '';
  socket.setEncoding('utf8');
  socket.on('data', (d: string) => {
    buf += d;
    let nl: number;
    while ((nl = buf.indexOf('\n')) !== -1) {
      const line = buf.slice(0, nl);
      if (line.trim() !== '') frames.push(JSON.parse(line)); // blank lines are allowed and ignored
      buf = buf.slice(nl + 1);
    }
    waiters.splice(0).forEach((w) => w());
  });
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()));
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return {
    socket,
    closed,
    connected,
    send(line: string) {
      socket.write(line.endsWith('\n') ? line : `${line}\n`);
    },
    async next(timeoutMs = 3000): Promise<any> {
      const deadline = Date.now() + timeoutMs;
      while (frames.length === 0) {
        if (Date.now() > deadline) throw new Error('no frame received');
        await new Promise<void>((r) => {
          waiters.push(r);
          setTimeout(r, 50);
        });
      }
      return frames.shift();
    },
  };
}

async function waitFor(cond: () => boolean, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function rejection(p: Promise<unknown>): Promise<KlaudeError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(KlaudeError);
    return e as KlaudeError;
  }
  throw new Error('expected a rejection');
}

/** Leave a socket file behind: a child listens on it and is SIGKILLed (no cleanup runs). */
async function leaveStaleSocket(socketPath: string): Promise<void> {
  fs.mkdirSync(path.dirname(socketPath), { recursive: true, mode: 0o700 });
  const child = spawn(
    process.execPath,
    ['-e', "require('net').createServer().listen(process.argv[1], () => console.log('ready'))", socketPath],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    child.once('exit', () => reject(new Error('child exited early')));
  });
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
  expect(fs.lstatSync(socketPath).isSocket()).toBe(true);
}

const uncaught = vi.fn();
const unhandled = vi.fn();
beforeAll(() => {
  process.on('uncaughtException', uncaught);
  process.on('unhandledRejection', unhandled);
});
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
  const errors = [...uncaught.mock.calls, ...unhandled.mock.calls];
  uncaught.mockClear();
  unhandled.mockClear();
  expect(errors).toEqual([]);
});
afterAll(() => {
  process.off('uncaughtException', uncaught);
  process.off('unhandledRejection', unhandled);
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

// ── tests ──────────────────────────────────────────────────────────────────

describe('control socket: requests', () => {
  it('answers ping with a typed result', async () => {
    const server = await serve();
    const res = await controlRequest(server.socketPath, 'ping', {});
    expect(res).toEqual({ pong: true, instanceId: 'inst-1', pid: process.pid, version: '0.1.0', protocol: 1 });
  });

  it('passes typed payloads to handlers and returns their results', async () => {
    const status: StatusResult = {
      instanceId: 'i',
      pid: 1,
      projectRoot: '/p',
      projectHash: 'h',
      mode: 'cli',
      rootSessionId: 'r',
      foregroundSessionId: null,
      foregroundPid: null,
      switching: false,
      startedAt: '2025-01-01T00:00:00.000Z',
    };
    const seen: unknown[] = [];
    const server = await serve({
      status: () => status,
      start: (p) => {
        seen.push(p);
        return { sessionIds: Array.from({ length: p.count ?? 1 }, (_, i) => `s${i}`) };
      },
      message: async (p) => ({ delivered: 'stdin', pid: p.prompt.length }),
    });
    const st = controlRequest(server.socketPath, 'status', {});
    expectTypeOf(st).resolves.toEqualTypeOf<StatusResult>();
    expect(await st).toEqual(status);
    const started = await controlRequest(server.socketPath, 'start', { type: 'general', prompt: 'hi', count: 3 });
    expect(started.sessionIds).toEqual(['s0', 's1', 's2']);
    expect(seen).toEqual([{ type: 'general', prompt: 'hi', count: 3 }]);
    expect(await controlRequest(server.socketPath, 'message', { sessionId: 's0', prompt: 'abcd' })).toEqual({
      delivered: 'stdin',
      pid: 4,
    });
    // @ts-expect-error: start needs a prompt
    void controlRequest.bind(null, server.socketPath, 'start', { type: 'general' });
  });

  it('rejects a payload of the wrong shape with E_BAD_REQUEST before the handler runs', async () => {
    const message = vi.fn(() => ({ delivered: 'stdin' as const }));
    const server = await serve({ message });
    const err = await rejection(controlRequest(server.socketPath, 'message', { sessionId: 's', prompt: 42 } as never));
    expect(err.code).toBe('E_BAD_REQUEST');
    expect(err.message).toMatch(/prompt/);
    expect(message).not.toHaveBeenCalled();
  });

  it('carries a KlaudeError code, hint and details to the client', async () => {
    const server = await serve({
      checkout: () => {
        throw new KlaudeError('E_AMBIGUOUS_ID', 'id "ab" matches 2 sessions', {
          hint: 'use more characters',
          details: { candidates: ['ab1', 'ab2'] },
        });
      },
    });
    const err = await rejection(controlRequest(server.socketPath, 'checkout', { target: 'ab' }));
    expect(err.code).toBe('E_AMBIGUOUS_ID');
    expect(err.message).toBe('id "ab" matches 2 sessions');
    expect(err.hint).toBe('use more characters');
    expect(err.details).toEqual({ candidates: ['ab1', 'ab2'] });
  });

  it('turns a plain Error into E_INTERNAL with its message and logs the stack', async () => {
    const log = vi.fn();
    const server = await startControlServer({
      socketPath: tmpSocket(),
      handlers: {
        interrupt: async () => {
          throw new Error('disk on fire');
        },
      },
      log,
    });
    servers.push(server);
    const err = await rejection(controlRequest(server.socketPath, 'interrupt', { sessionIds: ['a'] }));
    expect(err.code).toBe('E_INTERNAL');
    expect(err.message).toMatch(/disk on fire/);
    const errorLog = log.mock.calls.find((c) => c[0] === 'error');
    expect(errorLog?.[2]?.stack).toMatch(/disk on fire/);
  });

  it('answers a missing handler with E_BAD_REQUEST', async () => {
    const server = await serve({ ping });
    const err = await rejection(controlRequest(server.socketPath, 'stop', {}));
    expect(err.code).toBe('E_BAD_REQUEST');
    expect(err.message).toMatch(/stop/);
  });

  it('answers several requests on one connection, concurrently, correlated by id', async () => {
    const server = await serve({
      ping,
      message: async (p) => {
        await new Promise((r) => setTimeout(r, Number(p.sessionId) * 30));
        return { delivered: 'resumed', pid: Number(p.sessionId) };
      },
    });
    const c = rawConnection(server.socketPath);
    c.send(JSON.stringify({ v: 1, id: 'slow', action: 'message', payload: { sessionId: '5', prompt: '' } }));
    c.send(JSON.stringify({ v: 1, id: 'fast', action: 'message', payload: { sessionId: '0', prompt: '' } }));
    const a = await c.next();
    const b = await c.next();
    expect([a.id, b.id]).toEqual(['fast', 'slow']); // the slow one did not block the fast one
    expect(b).toEqual({ v: 1, id: 'slow', ok: true, result: { delivered: 'resumed', pid: 5 } });
    c.socket.destroy();
  });

  it('keeps the connection open after a malformed line', async () => {
    const server = await serve();
    const c = rawConnection(server.socketPath);
    c.send('{not json');
    const bad = await c.next();
    expect(bad).toMatchObject({ v: 1, id: null, ok: false, error: { code: 'E_BAD_REQUEST' } });
    c.send(JSON.stringify({ v: 1, id: 'after', action: 'ping' }));
    expect(await c.next()).toMatchObject({ id: 'after', ok: true, result: { pong: true } });
    c.socket.destroy();
  });

  it('answers a wrong version with E_PROTOCOL naming both versions, and reads a missing one as v1', async () => {
    const server = await serve();
    const c = rawConnection(server.socketPath);
    c.send(JSON.stringify({ v: 2, id: 'x', action: 'ping' }));
    const wrong = await c.next();
    expect(wrong).toMatchObject({ id: 'x', ok: false, error: { code: 'E_PROTOCOL' } });
    expect(wrong.error.message).toMatch(/v2/);
    expect(wrong.error.message).toMatch(/v1/);
    c.send(JSON.stringify({ id: 'y', action: 'ping' }));
    expect(await c.next()).toMatchObject({ v: 1, id: 'y', ok: true, result: { pong: true } });
    c.socket.destroy();
  });

  it('answers an unknown action with E_BAD_REQUEST naming it', async () => {
    const server = await serve();
    const c = rawConnection(server.socketPath);
    c.send(JSON.stringify({ v: 1, id: 'u', action: 'launch-missiles' }));
    const res = await c.next();
    expect(res).toMatchObject({ id: 'u', ok: false, error: { code: 'E_BAD_REQUEST' } });
    expect(res.error.message).toMatch(/launch-missiles/);
    c.socket.destroy();
  });

  it.each([
    [
      'a terminated line',
      (n: number) => `${JSON.stringify({ v: 1, id: 'big', action: 'ping', payload: { pad: 'x'.repeat(n) } })}\n`,
    ],
    ['an unterminated buffer', (n: number) => 'y'.repeat(n * 3)],
  ])('replies and closes on an oversized frame (%s); the server keeps serving', async (_name, make) => {
    const server = await serve({ ping }, { maxFrameBytes: 1024 });
    const c = rawConnection(server.socketPath);
    await c.connected;
    c.socket.write(make(2048));
    const res = await c.next();
    expect(res).toMatchObject({ ok: false, id: null, error: { code: 'E_BAD_REQUEST' } });
    expect(res.error.message).toMatch(/1024 bytes/);
    await c.closed;
    await waitFor(() => server.connections() === 0);
    expect((await controlRequest(server.socketPath, 'ping', {})).pong).toBe(true);
  });

  it('accepts a frame just under the limit', async () => {
    const server = await serve({ ping }, { maxFrameBytes: 1024 });
    const c = rawConnection(server.socketPath);
    const line = JSON.stringify({ v: 1, id: 'ok', action: 'ping', payload: { pad: 'x'.repeat(900) } });
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(1024);
    c.send(line);
    expect(await c.next()).toMatchObject({ id: 'ok', ok: true });
    c.socket.destroy();
  });

  it('survives clients hanging up mid-request (no uncaught errors, handler sees the abort)', async () => {
    const signals: AbortSignal[] = [];
    let finished = 0;
    const server = await serve({
      ping,
      status: async (_p, ctx) => {
        signals.push(ctx.signal);
        await new Promise((r) => setTimeout(r, 100));
        finished++;
        // A big answer to a closed socket: the write must be dropped or fail quietly.
        return { big: 'z'.repeat(2 * 1024 * 1024) } as never;
      },
    });
    for (let i = 0; i < 5; i++) {
      const c = rawConnection(server.socketPath);
      await c.connected;
      for (let j = 0; j < 4; j++) c.send(JSON.stringify({ v: 1, id: `r${j}`, action: 'status' }));
      await waitFor(() => signals.length >= (i + 1) * 4);
      c.socket.destroy();
    }
    await waitFor(() => finished === 20);
    await new Promise((r) => setTimeout(r, 50));
    expect(signals.every((s) => s.aborted)).toBe(true);
    expect(server.connections()).toBe(0);
    expect((await controlRequest(server.socketPath, 'ping', {})).pong).toBe(true);
  });

  it('still answers a client that half-closes after sending', async () => {
    const server = await serve();
    const c = rawConnection(server.socketPath);
    c.send(JSON.stringify({ v: 1, id: 'h', action: 'ping' }));
    c.socket.end();
    expect(await c.next()).toMatchObject({ id: 'h', ok: true });
    await c.closed;
  });

  it('fails with E_TIMEOUT when a handler never answers', async () => {
    let signal: AbortSignal | undefined;
    const server = await serve({
      checkout: (_p, ctx) => {
        signal = ctx.signal;
        return new Promise(() => undefined);
      },
    });
    const started = Date.now();
    const err = await rejection(controlRequest(server.socketPath, 'checkout', {}, { timeoutMs: 200 }));
    expect(err.code).toBe('E_TIMEOUT');
    expect(err.exitCode).toBe(124);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    // The client gave up and left: the server notices, drops the connection, aborts the handler's signal.
    await waitFor(() => server.connections() === 0);
    expect(signal?.aborted).toBe(true);
  });

  it('fails with E_NO_SUPERVISOR when the socket is missing or refused', async () => {
    const missing = await rejection(controlRequest(tmpSocket('nobody'), 'ping', {}));
    expect(missing.code).toBe('E_NO_SUPERVISOR');
    expect(missing.hint).toMatch(/start one with `klaude`/);
    const stale = tmpSocket('dead');
    await leaveStaleSocket(stale);
    expect((await rejection(controlRequest(stale, 'ping', {}))).code).toBe('E_NO_SUPERVISOR');
  });
});

describe('control socket: the file', () => {
  it('creates the socket 0600 in a 0700 dir even with umask 0', async () => {
    const old = process.umask(0);
    let server: ControlServer;
    try {
      server = await serve();
    } finally {
      process.umask(old);
    }
    expect(fs.statSync(server.socketPath).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.dirname(server.socketPath)).mode & 0o777).toBe(0o700);
  });

  it('tightens an existing socket dir that is too open', async () => {
    const socketPath = tmpSocket();
    fs.mkdirSync(path.dirname(socketPath), { mode: 0o755 });
    fs.chmodSync(path.dirname(socketPath), 0o755);
    await serve({ ping }, { socketPath });
    expect(fs.statSync(path.dirname(socketPath)).mode & 0o777).toBe(0o700);
  });

  it('cleans a stale socket left by a killed process and starts', async () => {
    const socketPath = tmpSocket();
    await leaveStaleSocket(socketPath);
    const server = await serve({ ping }, { socketPath });
    expect((await controlRequest(socketPath, 'ping', {})).instanceId).toBe('inst-1');
    await server.close();
    expect(fs.existsSync(socketPath)).toBe(false);
  });

  it('refuses to start over a live socket, and the live one keeps working', async () => {
    const first = await serve();
    const err = await rejection(serve({ ping }, { socketPath: first.socketPath }));
    expect(err.code).toBe('E_IO');
    expect(err.message).toMatch(/already listening/);
    expect((await controlRequest(first.socketPath, 'ping', {})).pong).toBe(true);
  });

  it('refuses a path that is not a socket', async () => {
    const socketPath = tmpSocket();
    fs.mkdirSync(path.dirname(socketPath), { mode: 0o700 });
    fs.writeFileSync(socketPath, 'precious');
    expect((await rejection(serve({ ping }, { socketPath }))).code).toBe('E_IO');
    expect(fs.readFileSync(socketPath, 'utf8')).toBe('precious');
  });

  it('close() ends connections, unlinks the file, and still delivers an in-flight answer', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const server = await startControlServer({
      socketPath: tmpSocket(),
      handlers: {
        ping,
        stop: async () => {
          await gate;
          return { stopping: true };
        },
      },
    });
    const sub = rawConnection(server.socketPath);
    sub.send(JSON.stringify({ v: 1, id: 's', action: 'subscribe' }));
    await sub.next();
    const stopping = controlRequest(server.socketPath, 'stop', {});
    await waitFor(() => server.connections() === 2);
    const closing = server.close();
    expect(fs.existsSync(server.socketPath)).toBe(false);
    await sub.closed;
    release();
    expect(await stopping).toEqual({ stopping: true });
    await closing;
    expect(server.connections()).toBe(0);
    expect((await rejection(controlRequest(server.socketPath, 'ping', {}))).code).toBe('E_NO_SUPERVISOR');
  });
});

describe('control socket: subscriptions', () => {
  it('delivers published events filtered by topic, after the subscribe response', async () => {
    const server = await serve();
    const got = { sessions: [] as ControlEvent[], updates: [] as ControlEvent[], all: [] as ControlEvent[] };
    const onClose = vi.fn();
    const s1 = await controlSubscribe(server.socketPath, { topics: ['sessions'] }, (e) => got.sessions.push(e), {
      onClose,
    });
    const s2 = await controlSubscribe(server.socketPath, { topics: ['updates'] }, (e) => got.updates.push(e));
    const s3 = await controlSubscribe(server.socketPath, {}, (e) => got.all.push(e));
    server.publish({ type: 'update', sessionId: 'a', text: 'halfway' });
    server.publish({ type: 'instance.foreground', sessionId: 'a', pid: 42 });
    server.publish({ type: 'session.changed', sessionId: 'a', status: 'done' });
    server.publish({ type: 'update', sessionId: 'a', text: 'marker' });
    await waitFor(() => got.sessions.length === 1 && got.updates.length === 2 && got.all.length === 4).catch((e) => {
      throw e;
    });
    expect(got.sessions).toEqual([{ type: 'session.changed', sessionId: 'a', status: 'done' }]);
    expect(got.updates.map((e) => (e as { text: string }).text)).toEqual(['halfway', 'marker']);
    expect(got.all.map((e) => e.type)).toEqual(['update', 'instance.foreground', 'session.changed', 'update']);
    // an explicit topic overrides the one derived from the type
    server.publish({ type: 'session.created', sessionId: 'b', parentId: 'a' }, 'updates');
    await waitFor(() => got.updates.length === 3);
    s1.close();
    s2.close();
    s3.close();
    await waitFor(() => server.connections() === 0);
    expect(onClose).not.toHaveBeenCalled();
  });

  it('tells the subscriber when the supervisor goes away', async () => {
    const server = await startControlServer({ socketPath: tmpSocket(), handlers: { ping } });
    const onClose = vi.fn();
    await controlSubscribe(server.socketPath, {}, () => undefined, { onClose });
    await server.close();
    await waitFor(() => onClose.mock.calls.length === 1);
    expect((onClose.mock.calls[0]?.[0] as KlaudeError).code).toBe('E_NO_SUPERVISOR');
  });

  it('lets a subscribe handler veto, and rejects unknown topics', async () => {
    const server = await serve({
      subscribe: () => {
        throw new KlaudeError('E_BAD_REQUEST', 'no subscribers today');
      },
    });
    expect((await rejection(controlSubscribe(server.socketPath, {}, () => undefined))).message).toBe(
      'no subscribers today',
    );
    const other = await serve();
    const err = await rejection(controlSubscribe(other.socketPath, { topics: ['gossip' as never] }, () => undefined));
    expect(err.code).toBe('E_BAD_REQUEST');
    expect(err.message).toMatch(/gossip/);
  });

  it('drops a subscriber that does not read instead of buffering without bound', async () => {
    const log = vi.fn();
    const server = await startControlServer({
      socketPath: tmpSocket(),
      handlers: { ping },
      maxSubscriberBufferBytes: 64 * 1024,
      log,
    });
    servers.push(server);
    const c = rawConnection(server.socketPath);
    c.send(JSON.stringify({ v: 1, id: 'slow', action: 'subscribe', payload: { topics: ['updates'] } }));
    expect(await c.next()).toMatchObject({ id: 'slow', ok: true, result: { subscribed: true } });
    c.socket.pause();
    const text = 'u'.repeat(32 * 1024);
    let sent = 0;
    while (server.connections() > 0 && sent < 4000) {
      server.publish({ type: 'update', sessionId: 'x', text });
      sent++;
      if (sent % 16 === 0) await new Promise((r) => setImmediate(r));
    }
    expect(server.connections()).toBe(0);
    expect(sent).toBeLessThan(4000);
    expect(log.mock.calls.some((call) => call[0] === 'warn' && /not reading/.test(String(call[1])))).toBe(true);
    c.socket.resume();
    await c.closed;
  });
});

/**
 * The supervisor's control socket server. Many requests per connection, handled concurrently,
 * one response each; `subscribe` turns a connection into an event subscriber. Nothing a client
 * does (garbage, huge frames, hanging up mid-request) may crash the supervisor.
 */
import net from 'node:net';
import { SYSTEM_PEER_SOURCE, unixSocketPeer, type Peer, type PeerSource } from '../lib/socket-peer.js';
import { KlaudeError } from '../lib/errors.js';
import type { SerializedError } from '../lib/errors.js';
import { LineDecoder } from '../lib/line-decoder.js';
import { parseRequestLine } from './frame-check.js';
import {
  encodeFrame,
  PROTOCOL_VERSION,
  TOPICS,
  topicOf,
  type Action,
  type ControlEvent,
  type PayloadOf,
  type RequestFrame,
  type ResultOf,
  type SubscribePayload,
  type Topic,
} from './protocol.js';
import {
  checkSocketPathLength,
  clearStaleSocket,
  listenPrivate,
  preparePrivateSocketDir,
  unlinkOwnSocket,
} from './socket-file.js';

export type ControlLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  data?: Record<string, unknown>,
) => void;

export interface HandlerContext {
  /** The request's id (for a subscribe: the id its events will carry). */
  requestId: string;
  /** Aborted when the client's connection closes (or the server closes) before the handler is done. */
  signal: AbortSignal;
  connectionId: number;
  /** The client process, asked of the kernel (lib/socket-peer.ts): its pid, or why there is none. */
  peer(): Peer;
}

export type ActionHandler<A extends Action> = (
  payload: PayloadOf<A>,
  ctx: HandlerContext,
) => ResultOf<A> | Promise<ResultOf<A>>;

/** A missing handler answers E_BAD_REQUEST "not supported"; `subscribe` is served by the server (a handler may veto by throwing). */
export type ControlHandlers = { [A in Action]?: ActionHandler<A> };

export interface ControlServerOptions {
  socketPath: string;
  handlers: ControlHandlers;
  /** Largest request line accepted; bigger → error reply, then the connection is closed. */
  maxFrameBytes?: number;
  /** A subscriber whose unsent output exceeds this is dropped (closed) instead of buffered further. */
  maxSubscriberBufferBytes?: number;
  /** How long close() lets in-flight requests finish and clients hang up before destroying connections. */
  closeGraceMs?: number;
  /**
   * Connections served at once (default MAX_CONNECTIONS). One more is answered with one error
   * frame and closed: each connection may buffer up to maxFrameBytes, so memory stays bounded.
   */
  maxConnections?: number;
  /** Where a client's pid is asked (tests hide /proc or `ss` with their own). */
  peerSource?: PeerSource;
  log?: ControlLog;
}

export interface ControlServer {
  readonly socketPath: string;
  /** Send an event to subscribers of `topic` (default: derived from the event type). */
  publish(event: ControlEvent, topic?: Topic): void;
  /** Stop listening, end connections (in-flight responses are still written), unlink the socket file. */
  close(): Promise<void>;
  connections(): number;
}

interface Conn {
  id: number;
  socket: net.Socket;
  decoder: LineDecoder;
  inFlight: number;
  readEnded: boolean;
  closing: boolean;
  abort: AbortController;
  /** subscribe request id → topics */
  subscriptions: Map<string, ReadonlySet<Topic>>;
}

export const DEFAULT_MAX_FRAME_BYTES = 1024 * 1024;
export const MAX_CONNECTIONS = 128;

/** The options with their defaults filled in. */
interface Settings {
  socketPath: string;
  handlers: ControlHandlers;
  log?: ControlLog;
  maxFrameBytes: number;
  maxSubscriberBuffer: number;
  closeGraceMs: number;
  maxConnections: number;
  peerSource: PeerSource;
}

/**
 * The server's state: the listener, its connections (each with its requests in flight and its
 * subscriptions), and the shutdown in progress. Connections, request dispatch, subscribers and
 * shutdown each have their methods below.
 */
class ControlSocketServer {
  readonly conns = new Set<Conn>();
  private nextConnId = 1;
  private closed: Promise<void> | undefined;
  /** Set by close(): called once the last connection has closed. */
  private onDrained: (() => void) | undefined;
  private readonly listener: net.Server;
  /** The socket file's inode, so close() only unlinks the file it created. */
  private ino = 0;

  constructor(private readonly s: Settings) {
    this.listener = net.createServer({ allowHalfOpen: true }, (socket) => this.accept(socket));
  }

  async listen(): Promise<void> {
    const { socketPath, log } = this.s;
    this.ino = await listenPrivate(this.listener, socketPath);
    this.listener.on('error', (err) => log?.('error', `control: server error: ${err.message}`));
    log?.('info', `control: listening on ${socketPath}`);
  }

  // ── connections ──────────────────────────────────────────────────────────

  private accept(socket: net.Socket): void {
    if (this.conns.size >= this.s.maxConnections) {
      this.refuse(socket);
      return;
    }
    const conn: Conn = {
      id: this.nextConnId++,
      socket,
      decoder: new LineDecoder(this.s.maxFrameBytes),
      inFlight: 0,
      readEnded: false,
      closing: this.closed !== undefined,
      abort: new AbortController(),
      subscriptions: new Map(),
    };
    this.conns.add(conn);
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // EPIPE / ECONNRESET from clients that hung up: expected, not worth more than a debug line.
      this.s.log?.('debug', `control: connection ${conn.id} error: ${err.code ?? err.message}`);
    });
    socket.on('close', () => this.onClosed(conn));
    socket.on('end', () => this.onReadEnd(conn));
    socket.on('data', (chunk: Buffer) => this.onData(conn, chunk));
    if (conn.closing) this.maybeEnd(conn);
  }

  /** Over maxConnections: one error frame, then close. */
  private refuse(socket: net.Socket): void {
    this.s.log?.('warn', `control: ${this.conns.size} connections open; refusing another`);
    socket.on('error', () => undefined);
    socket.end(
      encodeFrame({
        v: PROTOCOL_VERSION,
        id: null,
        ok: false,
        error: {
          code: 'E_IO',
          message: `the supervisor is serving ${this.s.maxConnections} connections already`,
          hint: 'try again in a moment',
        },
      }),
    );
    setTimeout(() => socket.destroy(), 1000).unref();
  }

  private onClosed(conn: Conn): void {
    this.conns.delete(conn);
    conn.subscriptions.clear();
    // A half-received frame (up to maxFrameBytes) is not kept alive by handlers still running.
    conn.decoder = new LineDecoder(1);
    conn.abort.abort();
    if (this.conns.size === 0 && this.onDrained) {
      const drained = this.onDrained;
      this.onDrained = undefined;
      drained();
    }
  }

  private onReadEnd(conn: Conn): void {
    // The client is done: answer what it asked, then hang up (a subscriber that hangs up is gone).
    conn.readEnded = true;
    conn.subscriptions.clear();
    // EOF looks the same for a half-close (still waiting for answers) and a hang-up. Probe with a
    // blank line (ignored by readers): to a peer that is gone it fails with EPIPE, which closes
    // the connection and aborts its handlers' signals.
    if (conn.inFlight > 0) conn.socket.write('\n');
    this.maybeEnd(conn);
  }

  private onData(conn: Conn, chunk: Buffer): void {
    if (conn.closing) return; // shutting down, or after an oversized frame: read nothing more
    const { lines, overflow } = conn.decoder.push(chunk);
    for (const line of lines) this.onLine(conn, line);
    if (overflow) this.dropOversized(conn);
  }

  private dropOversized(conn: Conn): void {
    const { maxFrameBytes } = this.s;
    this.s.log?.('warn', `control: connection ${conn.id} sent a frame over ${maxFrameBytes} bytes; closing it`);
    this.reply(conn, null, {
      error: { code: 'E_BAD_REQUEST', message: `request frame exceeds ${maxFrameBytes} bytes` },
    });
    conn.closing = true;
    conn.subscriptions.clear();
    conn.socket.end();
    // The client may keep writing and never hang up: don't wait on it forever.
    setTimeout(() => conn.socket.destroy(), 1000).unref();
  }

  /** End our side once the client is done sending (or we are shutting down) and no answer is owed. */
  private maybeEnd(conn: Conn): void {
    if (conn.inFlight > 0 || conn.socket.writableEnded) return;
    if (conn.closing || conn.readEnded) conn.socket.end();
  }

  private write(conn: Conn, frame: object): void {
    const { socket } = conn;
    if (socket.destroyed || socket.writableEnded) return;
    let text: string;
    try {
      text = encodeFrame(frame);
    } catch (e) {
      this.s.log?.('error', 'control: cannot encode frame', { error: String(e) });
      return;
    }
    socket.write(text);
  }

  private reply(conn: Conn, id: string | null, outcome: { result: unknown } | { error: SerializedError }): void {
    if ('error' in outcome) this.write(conn, { v: PROTOCOL_VERSION, id, ok: false, error: outcome.error });
    else this.write(conn, { v: PROTOCOL_VERSION, id, ok: true, result: outcome.result ?? null });
  }

  // ── requests ─────────────────────────────────────────────────────────────

  private onLine(conn: Conn, line: string): void {
    const checked = parseRequestLine(line);
    if (!checked.ok) {
      this.reply(conn, checked.id, { error: checked.error });
      return;
    }
    const req = checked.request;
    conn.inFlight++;
    this.dispatch(conn, req)
      .catch((err: unknown) => this.reply(conn, req.id, { error: this.toSerialized(err, req.action) }))
      .catch((err: unknown) => this.s.log?.('error', 'control: reply failed', { error: String(err) }))
      .finally(() => {
        conn.inFlight--;
        this.maybeEnd(conn);
      });
  }

  private async dispatch(conn: Conn, req: RequestFrame): Promise<void> {
    const ctx: HandlerContext = {
      requestId: req.id,
      signal: conn.abort.signal,
      connectionId: conn.id,
      peer: () => unixSocketPeer(conn.socket, this.s.peerSource),
    };
    const payload = (req.payload ?? {}) as never;
    if (req.action === 'subscribe') {
      await this.s.handlers.subscribe?.(payload, ctx);
      this.subscribe(conn, req);
      return;
    }
    const handler = this.s.handlers[req.action] as ((p: never, c: HandlerContext) => unknown) | undefined;
    if (!handler) {
      throw new KlaudeError('E_BAD_REQUEST', `action "${req.action}" is not supported by this supervisor`);
    }
    const result = await handler(payload, ctx);
    this.reply(conn, req.id, { result });
  }

  private toSerialized(err: unknown, action: string): SerializedError {
    if (err instanceof KlaudeError) return err.toJSON();
    const message = err instanceof Error ? err.message : String(err);
    this.s.log?.('error', `control: ${action} handler failed: ${message}`, {
      stack: err instanceof Error ? err.stack : undefined,
    });
    return { code: 'E_INTERNAL', message: `${action} failed: ${message}` };
  }

  // ── subscribers ──────────────────────────────────────────────────────────

  private subscribe(conn: Conn, req: RequestFrame): void {
    if (conn.socket.destroyed || conn.closing) return;
    const wanted = (req.payload as SubscribePayload | undefined)?.topics;
    conn.subscriptions.set(req.id, new Set(wanted && wanted.length > 0 ? wanted : TOPICS));
    // Registered and answered in one tick: no event can get ahead of the response.
    this.reply(conn, req.id, { result: { subscribed: true } });
  }

  publish(event: ControlEvent, topic: Topic = topicOf(event)): void {
    for (const conn of this.conns) {
      if (conn.subscriptions.size === 0 || conn.socket.destroyed) continue;
      for (const [id, topics] of conn.subscriptions) {
        if (!topics.has(topic)) continue;
        if (conn.socket.writableLength > this.s.maxSubscriberBuffer) {
          this.dropSlowSubscriber(conn);
          break;
        }
        this.write(conn, { v: PROTOCOL_VERSION, id, event });
      }
    }
  }

  private dropSlowSubscriber(conn: Conn): void {
    this.s.log?.(
      'warn',
      `control: subscriber ${conn.id} is not reading (${conn.socket.writableLength} bytes queued); dropping it`,
    );
    conn.subscriptions.clear();
    conn.socket.destroy();
  }

  // ── shutdown ─────────────────────────────────────────────────────────────

  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      unlinkOwnSocket(this.s.socketPath, this.ino);
      const timer = setTimeout(() => {
        for (const conn of this.conns) conn.socket.destroy();
      }, this.s.closeGraceMs);
      timer.unref();
      let pending = 2; // the listener closed, and every connection closed
      const settle = (): void => {
        if (--pending > 0) return;
        clearTimeout(timer);
        resolve();
      };
      this.listener.close(() => settle());
      if (this.conns.size === 0) settle();
      else this.onDrained = settle;
      for (const conn of this.conns) {
        conn.closing = true;
        conn.subscriptions.clear();
        this.maybeEnd(conn);
      }
    });
    return this.closed;
  }
}

export async function startControlServer(opts: ControlServerOptions): Promise<ControlServer> {
  const { socketPath } = opts;
  checkSocketPathLength(socketPath);
  preparePrivateSocketDir(socketPath);
  await clearStaleSocket(socketPath);
  const server = new ControlSocketServer({
    socketPath,
    handlers: opts.handlers,
    log: opts.log,
    maxFrameBytes: opts.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES,
    maxSubscriberBuffer: opts.maxSubscriberBufferBytes ?? 1024 * 1024,
    closeGraceMs: opts.closeGraceMs ?? 2000,
    maxConnections: opts.maxConnections ?? MAX_CONNECTIONS,
    peerSource: opts.peerSource ?? SYSTEM_PEER_SOURCE,
  });
  await server.listen();
  return {
    socketPath,
    publish: (event, topic) => server.publish(event, topic),
    close: () => server.close(),
    connections: () => server.conns.size,
  };
}

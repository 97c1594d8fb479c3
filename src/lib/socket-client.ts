/**
 * The one client of klaude's Unix sockets (a supervisor's or runtime's control socket, the PTY
 * server's, a PTY host's): check the socket file is ours, connect, send a request, wait for its
 * answer under a timeout, and hand every decoded message to the caller. The caller brings the
 * decoder (lines or binary frames) and the words of its errors; this class owns the socket and
 * makes sure every way a connection can end clears the timer, destroys the socket and settles the
 * answer exactly once.
 *
 * A connection lives in three states: waiting (for the answer, the timer running), answered (a
 * streaming connection keeps delivering messages until it closes, then `onEnd` runs), failed
 * (the answer was rejected; nothing more is delivered).
 */
import { createRequire } from 'node:module';
import type * as Net from 'node:net';
import { LineDecoder } from './line-decoder.js';
import { assertOwnSocket } from './secure-dir.js';

/**
 * node:net, loaded when a first connection is made: with its streams it is about 6 % of a
 * `klaude status` that finds no supervisor to ask (callgrind).
 */
function net(): typeof Net {
  return createRequire(import.meta.url)('node:net') as typeof Net;
}

/** Turns a byte stream into messages; `error` ends the stream after the messages before it. */
export interface StreamDecoder<M> {
  push(chunk: Buffer): { messages: M[]; error?: Error };
}

/** Newline-delimited text: each line a message (blank ones skipped). Over `maxLineBytes`: `overflowError()`. */
export function lineStream(
  maxLineBytes = Number.POSITIVE_INFINITY,
  overflowError: () => Error = () => new Error(`line over ${maxLineBytes} bytes`),
): StreamDecoder<string> {
  const decoder = new LineDecoder(maxLineBytes);
  return {
    push(chunk) {
      const { lines, overflow } = decoder.push(chunk);
      return overflow ? { messages: lines, error: overflowError() } : { messages: lines };
    },
  };
}

/** A decoder that throws on a malformed stream (the PTY frame decoder): its throw ends the stream. */
export function throwingStream<M>(decoder: { push(chunk: Buffer): M[] }): StreamDecoder<M> {
  return {
    push(chunk) {
      try {
        return { messages: decoder.push(chunk) };
      } catch (e) {
        return { messages: [], error: e as Error };
      }
    },
  };
}

/** The errors a caller reports in its own words. */
export interface SocketClientErrors {
  /** No answer within the timeout. */
  timeout(): Error;
  /** The socket failed: before the answer (connect refused, no file…) or after it (connection lost). */
  socket(err: NodeJS.ErrnoException, answered: boolean): Error;
  /** The other side closed the connection before answering. */
  closed(): Error;
}

export interface SocketClientOptions<M, T> {
  socketPath: string;
  timeoutMs: number;
  decoder: StreamDecoder<M>;
  errors: SocketClientErrors;
  /** Connected: send the request. */
  onConnect(client: SocketClient<M, T>): void;
  /** One decoded message: settle or fail the answer while waiting, take events after. */
  onMessage(message: M, client: SocketClient<M, T>): void;
  /** After an answer, the connection closed: `error` says why, absent when it simply closed (or we closed it). */
  onEnd?(error?: Error): void;
}

export class SocketClient<M, T> {
  /** Resolves with what `settle` is given; rejects with the first error while waiting. */
  readonly answer: Promise<T>;
  private readonly socket: Net.Socket;
  private readonly timer: NodeJS.Timeout;
  private state: 'waiting' | 'answered' | 'failed' = 'waiting';
  /** The first error after the answer: given to onEnd once the socket has closed. */
  private endError: Error | undefined;
  private ended = false;
  private resolveAnswer!: (value: T) => void;
  private rejectAnswer!: (error: Error) => void;

  /** Throws (E_INSECURE_RUNDIR) when the socket file belongs to another user; nothing is opened then. */
  constructor(private readonly opts: SocketClientOptions<M, T>) {
    assertOwnSocket(opts.socketPath);
    this.answer = new Promise<T>((resolve, reject) => {
      this.resolveAnswer = resolve;
      this.rejectAnswer = reject;
    });
    this.socket = net().createConnection(opts.socketPath);
    this.timer = setTimeout(() => this.fail(opts.errors.timeout()), opts.timeoutMs);
    this.socket.once('connect', () => opts.onConnect(this));
    this.socket.on('data', (chunk: Buffer) => this.read(chunk));
    this.socket.on('error', (err: NodeJS.ErrnoException) =>
      this.fail(opts.errors.socket(err, this.state === 'answered')),
    );
    this.socket.on('close', () => this.closed());
  }

  /** Still waiting for the answer. */
  get waiting(): boolean {
    return this.state === 'waiting';
  }

  /** The answer came: stop the timer and resolve. */
  settle(value: T): void {
    if (this.state !== 'waiting') return;
    this.state = 'answered';
    clearTimeout(this.timer);
    this.resolveAnswer(value);
  }

  /** Give up on the connection: reject the answer while waiting (else keep the error for onEnd), and destroy it. */
  fail(error: Error): void {
    if (this.state === 'waiting') {
      this.state = 'failed';
      clearTimeout(this.timer);
      this.rejectAnswer(error);
    } else {
      this.endError ??= error;
    }
    this.socket.destroy();
  }

  write(data: string | Buffer): void {
    if (!this.socket.destroyed && this.socket.writable) this.socket.write(data);
  }

  /** Send `last` (if any) and end our side; the other side hangs up in turn. */
  end(last?: string | Buffer): void {
    if (this.socket.destroyed) return;
    if (last !== undefined) this.write(last);
    this.socket.end();
  }

  /** Hang up now. */
  close(): void {
    this.socket.destroy();
  }

  /** Stop reading (backpressure) / read again. */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  private read(chunk: Buffer): void {
    const { messages, error } = this.opts.decoder.push(chunk);
    for (const message of messages) {
      if (this.socket.destroyed) return;
      this.opts.onMessage(message, this);
    }
    if (error && !this.socket.destroyed) this.fail(error);
  }

  private closed(): void {
    if (this.state === 'waiting') this.fail(this.opts.errors.closed());
    else if (this.state === 'answered' && !this.ended) {
      this.ended = true;
      this.opts.onEnd?.(this.endError);
    }
  }
}

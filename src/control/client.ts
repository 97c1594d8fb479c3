/**
 * Control socket client, used by every short-lived `klaude` command: one connection per call,
 * no dependencies beyond node:net.
 */
import net from 'node:net';
import { assertOwnSocket } from '../lib/secure-dir.js';
import { fromSerialized, KlaudeError } from '../lib/errors.js';
import { LineDecoder } from '../lib/line-decoder.js';
import {
  encodeFrame,
  isEventFrame,
  isResponseFrame,
  PROTOCOL_VERSION,
  type Action,
  type ControlEvent,
  type PayloadOf,
  type ResponseFrame,
  type ResultOf,
  type SubscribePayload,
} from './protocol.js';

export interface RequestOptions {
  /** Give up (E_TIMEOUT) after this long without a response. Default 5000. */
  timeoutMs?: number;
}

export interface SubscribeOptions {
  /** Called once when the subscription ends other than by `close()` (supervisor gone, protocol error). */
  onClose?: (error?: KlaudeError) => void;
  /** Timeout for the subscribe response. Default 5000. */
  timeoutMs?: number;
}

const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;
let counter = 0;
const newId = (): string => `${process.pid.toString(36)}-${Date.now().toString(36)}-${(counter++).toString(36)}`;

function connectError(socketPath: string, err: NodeJS.ErrnoException): KlaudeError {
  if (err.code === 'ENOENT' || err.code === 'ECONNREFUSED') {
    return new KlaudeError('E_NO_SUPERVISOR', `no klaude supervisor is running at ${socketPath}`, {
      hint: 'start one with `klaude` in this project',
      cause: err,
    });
  }
  return new KlaudeError('E_IO', `control socket ${socketPath}: ${err.message}`, { cause: err });
}

/** The outcome of a response frame: its result, or the error it carries. */
function settleResponse(frame: ResponseFrame): { result: unknown } | { error: KlaudeError } {
  if (!frame.ok) return { error: fromSerialized(frame.error) };
  if (frame.v !== PROTOCOL_VERSION) {
    return {
      error: new KlaudeError(
        'E_PROTOCOL',
        `protocol version mismatch: supervisor answered v${String(frame.v)}, this klaude speaks v${PROTOCOL_VERSION}`,
        { hint: 'use the same klaude version for the supervisor and the command' },
      ),
    };
  }
  return { result: frame.result };
}

interface Exchange {
  socket: net.Socket;
  /** Resolves with the response to `id`. */
  response: Promise<unknown>;
}

/**
 * Open a connection, send one request, and route frames: the response settles `response`,
 * event frames for `id` go to `onEvent`, the end of the connection to `onEnd`.
 */
function exchange(
  socketPath: string,
  action: Action,
  payload: unknown,
  timeoutMs: number,
  onEvent?: (event: ControlEvent) => void,
  onEnd?: (error?: KlaudeError) => void,
): Exchange {
  const id = newId();
  assertOwnSocket(socketPath);
  const socket = net.createConnection(socketPath);
  const decoder = new LineDecoder(MAX_RESPONSE_BYTES);
  let answered = false;
  let resolveFn!: (v: unknown) => void;
  let rejectFn!: (e: KlaudeError) => void;
  const response = new Promise<unknown>((res, rej) => {
    resolveFn = res;
    rejectFn = rej;
  });
  const fail = (e: KlaudeError): void => {
    if (!answered) {
      answered = true;
      clearTimeout(timer);
      rejectFn(e);
    } else {
      onEnd?.(e);
      onEnd = undefined;
    }
    socket.destroy();
  };
  const timer = setTimeout(() => {
    fail(
      new KlaudeError('E_TIMEOUT', `the supervisor did not answer "${action}" within ${timeoutMs} ms`, {
        hint: 'it may be busy or stuck; see its log file',
      }),
    );
  }, timeoutMs);

  socket.once('connect', () => {
    let frame: string;
    try {
      frame = encodeFrame({ v: PROTOCOL_VERSION, id, action, payload });
    } catch (e) {
      fail(new KlaudeError('E_BAD_REQUEST', `cannot encode ${action} request: ${(e as Error).message}`));
      return;
    }
    socket.write(frame);
  });
  socket.on('error', (err: NodeJS.ErrnoException) => {
    fail(answered ? new KlaudeError('E_IO', `control connection lost: ${err.message}`) : connectError(socketPath, err));
  });
  socket.on('close', () => {
    if (!answered) fail(new KlaudeError('E_IO', `the supervisor closed the connection before answering "${action}"`));
    else if (onEnd) fail(new KlaudeError('E_NO_SUPERVISOR', 'the supervisor closed the connection'));
  });
  socket.on('data', (chunk: Buffer) => {
    const { lines, overflow } = decoder.push(chunk);
    for (const line of lines) {
      if (socket.destroyed) return;
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        fail(new KlaudeError('E_PROTOCOL', 'the supervisor sent a line that is not JSON'));
        return;
      }
      if (!answered && isResponseFrame(value) && (value.id === id || (value.id === null && !value.ok))) {
        answered = true;
        clearTimeout(timer);
        const outcome = settleResponse(value);
        if ('error' in outcome) {
          rejectFn(outcome.error);
          socket.destroy();
          return;
        }
        resolveFn(outcome.result);
        if (!onEvent) {
          socket.destroy();
          return;
        }
      } else if (answered && onEvent && isEventFrame(value) && value.id === id) {
        onEvent(value.event);
      }
    }
    if (overflow) fail(new KlaudeError('E_PROTOCOL', `the supervisor sent a frame over ${MAX_RESPONSE_BYTES} bytes`));
  });
  return { socket, response };
}

/** Send one request and wait for its typed result. Throws KlaudeError (E_NO_SUPERVISOR, E_TIMEOUT, or the handler's code). */
export async function controlRequest<A extends Action>(
  socketPath: string,
  action: A,
  payload: PayloadOf<A>,
  opts: RequestOptions = {},
): Promise<ResultOf<A>> {
  const { response } = exchange(socketPath, action, payload, opts.timeoutMs ?? 5000);
  return (await response) as ResultOf<A>;
}

/**
 * Subscribe to supervisor events. Resolves once the supervisor confirmed the subscription;
 * `onEvent` then gets every event for the chosen topics (ignore types you do not know).
 * `onEvent` must not throw.
 */
export async function controlSubscribe(
  socketPath: string,
  payload: SubscribePayload,
  onEvent: (event: ControlEvent) => void,
  opts: SubscribeOptions = {},
): Promise<{ close(): void }> {
  let closedByUs = false;
  const { socket, response } = exchange(socketPath, 'subscribe', payload, opts.timeoutMs ?? 5000, onEvent, (error) => {
    if (!closedByUs) opts.onClose?.(error);
  });
  await response;
  return {
    close() {
      closedByUs = true;
      socket.destroy();
    },
  };
}

/**
 * Control socket client, used by every short-lived `klaude` command: one connection per call,
 * no dependencies beyond node:net (lib/socket-client.ts).
 */
import { fromSerialized, KlaudeError } from '../lib/errors.js';
import { lineStream, SocketClient } from '../lib/socket-client.js';
import { isEventFrame, isResponseFrame } from './frame-check.js';
import {
  encodeFrame,
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

type ControlClient = SocketClient<string, unknown>;

/** The request's response settles the answer (closing a plain request); its events go to `onEvent`. */
function routeLine(client: ControlClient, line: string, id: string, onEvent?: (event: ControlEvent) => void): void {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    client.fail(new KlaudeError('E_PROTOCOL', 'the supervisor sent a line that is not JSON'));
    return;
  }
  if (client.waiting && isResponseFrame(value) && (value.id === id || (value.id === null && !value.ok))) {
    const outcome = settleResponse(value);
    if ('error' in outcome) {
      client.fail(outcome.error);
      return;
    }
    client.settle(outcome.result);
    if (!onEvent) client.close();
  } else if (!client.waiting && onEvent && isEventFrame(value) && value.id === id) {
    onEvent(value.event);
  }
}

/** Encode and send the request frame (a payload JSON cannot carry fails the request). */
function sendRequest(client: ControlClient, id: string, action: Action, payload: unknown): void {
  let frame: string;
  try {
    frame = encodeFrame({ v: PROTOCOL_VERSION, id, action, payload });
  } catch (e) {
    client.fail(new KlaudeError('E_BAD_REQUEST', `cannot encode ${action} request: ${(e as Error).message}`));
    return;
  }
  client.write(frame);
}

/**
 * Open a connection and send one request: its response settles `answer`, event frames for it go
 * to `onEvent`, and the end of the connection after the response to `onEnd`.
 */
function exchange(
  socketPath: string,
  action: Action,
  payload: unknown,
  timeoutMs: number,
  onEvent?: (event: ControlEvent) => void,
  onEnd?: (error: KlaudeError) => void,
): ControlClient {
  const id = newId();
  return new SocketClient<string, unknown>({
    socketPath,
    timeoutMs,
    decoder: lineStream(
      MAX_RESPONSE_BYTES,
      () => new KlaudeError('E_PROTOCOL', `the supervisor sent a frame over ${MAX_RESPONSE_BYTES} bytes`),
    ),
    errors: {
      timeout: () =>
        new KlaudeError('E_TIMEOUT', `the supervisor did not answer "${action}" within ${timeoutMs} ms`, {
          hint: 'it may be busy or stuck; see its log file',
        }),
      socket: (err, answered) =>
        answered ? new KlaudeError('E_IO', `control connection lost: ${err.message}`) : connectError(socketPath, err),
      closed: () => new KlaudeError('E_IO', `the supervisor closed the connection before answering "${action}"`),
    },
    onConnect: (client) => sendRequest(client, id, action, payload),
    onMessage: (line, client) => routeLine(client, line, id, onEvent),
    // Every error this client raises is a KlaudeError; none means the supervisor hung up.
    onEnd: (error) =>
      onEnd?.(
        (error as KlaudeError | undefined) ??
          new KlaudeError('E_NO_SUPERVISOR', 'the supervisor closed the connection'),
      ),
  });
}

/** Send one request and wait for its typed result. Throws KlaudeError (E_NO_SUPERVISOR, E_TIMEOUT, or the handler's code). */
export async function controlRequest<A extends Action>(
  socketPath: string,
  action: A,
  payload: PayloadOf<A>,
  opts: RequestOptions = {},
): Promise<ResultOf<A>> {
  const client = exchange(socketPath, action, payload, opts.timeoutMs ?? 5000);
  return (await client.answer) as ResultOf<A>;
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
  const client = exchange(socketPath, 'subscribe', payload, opts.timeoutMs ?? 5000, onEvent, (error) => {
    if (!closedByUs) opts.onClose?.(error);
  });
  await client.answer;
  return {
    close() {
      closedByUs = true;
      client.close();
    },
  };
}

/**
 * The client side of a PTY host's socket, shared by `klaude talk` (controller or viewer) and the
 * dashboard's preview (viewer). Callbacks are given up front: the screen frame can arrive in the
 * same read as the welcome, and must not be missed.
 */
import { fromSerialized, KlaudeError } from '../lib/errors.js';
import { SocketClient, throwingStream } from '../lib/socket-client.js';
import {
  decodeJson,
  encodeFrame,
  FRAME,
  FrameDecoder,
  PTY_PROTOCOL_VERSION,
  type AttachMode,
  type ExitInfo,
  type Frame,
  type GridRows,
  type Hello,
  type Size,
  type Welcome,
  type WireError,
} from '../ptyd/framing.js';

export interface PtyClientHandlers {
  /** Right after the host accepted us, before the screen (prepare the terminal here). */
  onWelcome?(w: Welcome): void;
  /** The session's current screen as ANSI (once, first). */
  onScreen?(ansi: Buffer): void;
  onOutput?(data: Buffer): void;
  /** A grid viewer's rows (instead of the screen and output bytes; see framing.ts). */
  onRows?(rows: GridRows): void;
  /** The PTY was resized by the controller (viewers only). */
  onResized?(s: Size): void;
  /** The CLI exited; the connection closes next. */
  onExit?(e: ExitInfo): void;
  /** The connection closed (after onExit when the CLI exited; alone when the host went away or we closed). */
  onClose?(): void;
}

export interface PtyConnection {
  readonly welcome: Welcome;
  input(data: Buffer): void;
  resize(s: Size): void;
  /** Say goodbye and close (the session keeps running). */
  detach(): void;
  /** Stop reading (backpressure) / read again. */
  pause(): void;
  resume(): void;
}

export interface ConnectOptions {
  mode: AttachMode;
  size?: Size;
  timeoutMs?: number;
  /** Scrollback lines to receive ahead of the screen (default: the host's). */
  history?: number;
  /** A viewer asking for rows of cells, at most one frame per `ms` (honoured when the welcome says `grid`). */
  grid?: Hello['grid'];
  /** Who we are, in words, for a second controller's refusal (default: `klaude (pid N)`). */
  who?: string;
}

type PtyClient = SocketClient<Frame, Welcome>;

function hello(opts: ConnectOptions): Buffer {
  const size = opts.size ?? { cols: 80, rows: 24 };
  return encodeFrame(FRAME.hello, {
    v: PTY_PROTOCOL_VERSION,
    mode: opts.mode,
    cols: size.cols,
    rows: size.rows,
    ...(opts.history !== undefined ? { history: opts.history } : {}),
    ...(opts.grid ? { grid: opts.grid } : {}),
    who: opts.who ?? `klaude (pid ${process.pid})`,
  });
}

/** The first frame: the welcome, or the error the host refuses us with (thrown). */
function welcomeOf(f: Frame): Welcome {
  if (f.type === FRAME.error) throw fromSerialized(decodeJson<WireError>(f));
  if (f.type !== FRAME.welcome) throw new KlaudeError('E_PROTOCOL', `unexpected PTY frame ${f.type} before welcome`);
  return decodeJson<Welcome>(f);
}

/** A JSON frame's payload; a malformed one fails the connection (undefined). */
function payloadOf<T>(client: PtyClient, f: Frame): T | undefined {
  try {
    return decodeJson<T>(f);
  } catch (e) {
    client.fail(e as Error);
    return undefined;
  }
}

/** After the welcome: hand one frame to its handler. */
function deliver(client: PtyClient, f: Frame, h: PtyClientHandlers): void {
  if (f.type === FRAME.screen) h.onScreen?.(f.payload);
  else if (f.type === FRAME.output) h.onOutput?.(f.payload);
  else if (f.type === FRAME.rows && h.onRows) {
    const rows = payloadOf<GridRows>(client, f);
    if (rows) h.onRows(rows);
  } else if (f.type === FRAME.resized && h.onResized) {
    const size = payloadOf<Size>(client, f);
    if (size) h.onResized(size);
  } else if (f.type === FRAME.exit && h.onExit) {
    const exit = payloadOf<ExitInfo>(client, f);
    if (exit) h.onExit(exit);
  }
}

function onFrame(client: PtyClient, f: Frame, h: PtyClientHandlers): void {
  if (!client.waiting) return deliver(client, f, h);
  let w: Welcome;
  try {
    w = welcomeOf(f);
  } catch (e) {
    client.fail(e as Error);
    return;
  }
  h.onWelcome?.(w);
  client.settle(w);
}

function ptyConnection(client: PtyClient, welcome: Welcome): PtyConnection {
  return {
    welcome,
    input: (data) => client.write(encodeFrame(FRAME.input, data)),
    resize: (s) => client.write(encodeFrame(FRAME.resize, s)),
    detach: () => client.end(encodeFrame(FRAME.detach)),
    pause: () => client.pause(),
    resume: () => client.resume(),
  };
}

/** Connect and say hello; resolves once welcomed. E_SESSION_BUSY (etc.) from the host, E_IO when nothing listens. */
export async function connectPty(
  socketPath: string,
  opts: ConnectOptions,
  h: PtyClientHandlers = {},
): Promise<PtyConnection> {
  const client = new SocketClient<Frame, Welcome>({
    socketPath,
    timeoutMs: opts.timeoutMs ?? 10_000,
    decoder: throwingStream(new FrameDecoder()),
    errors: {
      timeout: () => new KlaudeError('E_TIMEOUT', 'the PTY session did not answer'),
      socket: (e) =>
        new KlaudeError('E_IO', `cannot reach the PTY session at ${socketPath}: ${e.code ?? e.message}`, {
          details: { errno: e.code },
        }),
      closed: () => new KlaudeError('E_IO', 'the PTY session closed the connection'),
    },
    onConnect: (c) => c.write(hello(opts)),
    onMessage: (f, c) => onFrame(c, f, h),
    // After the CLI exited (onExit) or alone when the host went away or we detached.
    onEnd: () => h.onClose?.(),
  });
  return ptyConnection(client, await client.answer);
}

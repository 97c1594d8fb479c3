/**
 * The client side of a PTY host's socket, shared by `klaude talk` (controller or viewer) and the
 * dashboard's preview (viewer). Callbacks are given up front: the screen frame can arrive in the
 * same read as the welcome, and must not be missed.
 */
import net from 'node:net';
import { assertOwnSocket } from '../lib/secure-dir.js';
import { fromSerialized, KlaudeError } from '../lib/errors.js';
import {
  decodeJson,
  encodeFrame,
  FRAME,
  FrameDecoder,
  PTY_PROTOCOL_VERSION,
  type AttachMode,
  type ExitInfo,
  type GridRows,
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
  grid?: { ms: number };
}

/** Connect and say hello; resolves once welcomed. E_SESSION_BUSY (etc.) from the host, E_IO when nothing listens. */
export function connectPty(
  socketPath: string,
  opts: ConnectOptions,
  h: PtyClientHandlers = {},
): Promise<PtyConnection> {
  return new Promise((resolve, reject) => {
    try {
      assertOwnSocket(socketPath);
    } catch (e) {
      reject(e);
      return;
    }
    const sock = net.createConnection(socketPath);
    const decoder = new FrameDecoder();
    let welcomed = false;
    let failed = false;
    let closed = false;
    const fail = (e: KlaudeError): void => {
      if (welcomed || failed) return;
      failed = true;
      clearTimeout(timer);
      sock.destroy();
      reject(e);
    };
    const timer = setTimeout(
      () => fail(new KlaudeError('E_TIMEOUT', 'the PTY session did not answer')),
      opts.timeoutMs ?? 10_000,
    );
    const write = (f: Buffer): void => {
      if (!sock.destroyed && sock.writable) sock.write(f);
    };
    const conn = (w: Welcome): PtyConnection => ({
      welcome: w,
      input: (data) => write(encodeFrame(FRAME.input, data)),
      resize: (s) => write(encodeFrame(FRAME.resize, s)),
      detach: () => {
        if (sock.destroyed) return;
        write(encodeFrame(FRAME.detach));
        sock.end();
      },
      pause: () => sock.pause(),
      resume: () => sock.resume(),
    });
    sock.once('connect', () => {
      const size = opts.size ?? { cols: 80, rows: 24 };
      write(
        encodeFrame(FRAME.hello, {
          v: PTY_PROTOCOL_VERSION,
          mode: opts.mode,
          cols: size.cols,
          rows: size.rows,
          ...(opts.history !== undefined ? { history: opts.history } : {}),
          ...(opts.grid ? { grid: opts.grid } : {}),
        }),
      );
    });
    sock.on('data', (chunk) => {
      let frames;
      try {
        frames = decoder.push(chunk);
      } catch (e) {
        sock.destroy();
        fail(e as KlaudeError);
        return;
      }
      for (const f of frames) {
        if (!welcomed) {
          if (f.type === FRAME.error) return fail(fromSerialized(decodeJson<WireError>(f)));
          if (f.type !== FRAME.welcome)
            return fail(new KlaudeError('E_PROTOCOL', `unexpected PTY frame ${f.type} before welcome`));
          const w = decodeJson<Welcome>(f);
          welcomed = true;
          clearTimeout(timer);
          h.onWelcome?.(w);
          resolve(conn(w));
          continue;
        }
        if (f.type === FRAME.screen) h.onScreen?.(f.payload);
        else if (f.type === FRAME.output) h.onOutput?.(f.payload);
        else if (f.type === FRAME.rows) h.onRows?.(decodeJson<GridRows>(f));
        else if (f.type === FRAME.resized) h.onResized?.(decodeJson<Size>(f));
        else if (f.type === FRAME.exit) h.onExit?.(decodeJson<ExitInfo>(f));
      }
    });
    sock.on('error', (e: NodeJS.ErrnoException) => {
      fail(
        new KlaudeError('E_IO', `cannot reach the PTY session at ${socketPath}: ${e.code ?? e.message}`, {
          details: { errno: e.code },
        }),
      );
    });
    sock.on('close', () => {
      if (!welcomed) fail(new KlaudeError('E_IO', 'the PTY session closed the connection'));
      else if (!closed) {
        closed = true;
        h.onClose?.();
      }
    });
  });
}

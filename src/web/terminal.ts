/**
 * One page's terminal of a PTY session: a WebSocket put through to the session's host socket
 * (ptyd/host.ts), as `klaude talk` is.
 *
 * - View-only first: a viewer connection (any number may watch). Its first frame is the current
 *   screen, then the output bytes.
 * - "Take over" opens a controller connection: the host's one-controller rule is the same claim
 *   `klaude talk` and the dashboard take, so a session held elsewhere is refused with the holder
 *   named (hello's `who`), and while the page holds it no terminal can take it. Once the controller
 *   is welcomed the viewer is let go. "Release" is the reverse.
 * - Keys and resizes reach the CLI only through the controller connection: a page that has not
 *   taken over is told so (E_WEB_VIEW_ONLY) and nothing is written.
 *
 * To the page (text frames are JSON, binary frames are terminal bytes):
 *   {t:'screen', cols, rows, mode}   a fresh screen follows (reset the terminal)
 *   {t:'resized', cols, rows}  {t:'refused', code, message, hint?}  {t:'exit', exitCode, signal}
 * From the page: {t:'take', cols, rows}  {t:'release'}  {t:'in', d}  {t:'size', cols, rows}
 */
import { KlaudeError } from '../lib/errors.js';
import { connectPty, type PtyConnection } from '../pty/host-client.js';
import { validSize, type AttachMode, type Size } from '../ptyd/framing.js';
import type { WebSocketLike } from './ws-upgrade.js';

/** Output held for a slow page before a viewer is dropped; a controller's PTY is paused instead. */
const MAX_BUFFERED = 4 * 1024 * 1024;
const RESUME_BELOW = 256 * 1024;

type FromPage =
  | { t: 'take'; cols?: number; rows?: number }
  | { t: 'release' }
  | { t: 'in'; d?: string }
  | { t: 'size'; cols?: number; rows?: number };

export interface TerminalOptions {
  ws: WebSocketLike;
  socketPath: string;
  /** How a second controller is told who holds the session. */
  who: string;
  /** The socket closed (for the server's set of open streams). */
  onEnd?: () => void;
}

export class TerminalBridge {
  /** The connection whose frames reach the page (the one last welcomed), and its token. */
  private current: PtyConnection | null = null;
  private active: object | null = null;
  private mode: AttachMode = 'view';
  /** A take-over or release in flight: one at a time. */
  private switching = false;
  private ended = false;
  private paused = false;

  constructor(private readonly o: TerminalOptions) {
    o.ws.on('message', (data, isBinary) => this.onMessage(isBinary ? null : String(data as Buffer)));
    o.ws.on('close', () => this.end());
    o.ws.on('error', () => this.end());
  }

  async start(): Promise<void> {
    try {
      await this.connect('view');
    } catch (e) {
      this.refused(e);
      this.o.ws.close(1011, 'the PTY session is gone');
    }
  }

  private sendJson(o: object): void {
    if (this.o.ws.readyState === 1) this.o.ws.send(JSON.stringify(o));
  }

  private sendBytes(b: Buffer): void {
    const { ws } = this.o;
    if (ws.readyState !== 1) return;
    ws.send(b, () => {
      if (this.paused && ws.bufferedAmount < RESUME_BELOW) {
        this.paused = false;
        this.current?.resume();
      }
    });
    if (ws.bufferedAmount <= MAX_BUFFERED) return;
    if (this.mode === 'view') ws.close(1013, 'too far behind');
    else if (!this.paused) {
      this.paused = true;
      this.current?.pause();
    }
  }

  private refused(e: unknown): void {
    const k = e instanceof KlaudeError ? e : null;
    this.sendJson({
      t: 'refused',
      code: k?.code ?? 'E_INTERNAL',
      message: (e as Error)?.message ?? String(e),
      ...(k?.hint ? { hint: k.hint } : {}),
    });
  }

  /** Connect in `mode`; once welcomed, this connection's frames are the page's and the previous one is let go. */
  private async connect(mode: AttachMode, size?: Size): Promise<void> {
    const previous = this.current;
    // The welcome and the screen can come in one read, before connectPty resolves: frames are
    // matched to their connection by this token, set when its welcome arrives.
    const me = {};
    const mine = (): boolean => this.active === me;
    const conn = await connectPty(
      this.o.socketPath,
      { mode, who: this.o.who, ...(size ? { size } : {}) },
      {
        onWelcome: (w) => {
          this.active = me;
          this.mode = w.mode;
          this.sendJson({ t: 'screen', cols: w.cols, rows: w.rows, mode: w.mode });
        },
        onScreen: (b) => (mine() ? this.sendBytes(b) : undefined),
        onOutput: (b) => (mine() ? this.sendBytes(b) : undefined),
        onResized: (s) => (mine() ? this.sendJson({ t: 'resized', ...s }) : undefined),
        onExit: (e) => (mine() ? this.sendJson({ t: 'exit', ...e }) : undefined),
        onClose: () => (mine() ? this.o.ws.close(1000, 'the session ended') : undefined),
      },
    );
    this.current = conn;
    this.paused = false;
    previous?.detach();
    if (this.ended) conn.detach();
  }

  private onMessage(text: string | null): void {
    let m: FromPage;
    try {
      m = JSON.parse(text ?? 'null') as FromPage;
    } catch {
      return;
    }
    if (!m || typeof m !== 'object') return;
    switch (m.t) {
      case 'in':
        if (typeof m.d !== 'string') return;
        if (this.mode !== 'control' || this.switching)
          return this.sendJson({ t: 'refused', code: 'E_WEB_VIEW_ONLY', message: 'view only: take over to type' });
        this.current?.input(Buffer.from(m.d, 'utf8'));
        return;
      case 'size': {
        const s = validSize(m);
        if (s && this.mode === 'control' && !this.switching) this.current?.resize(s);
        return;
      }
      case 'take':
      case 'release':
        return this.switchTo(m.t === 'take' ? 'control' : 'view', validSize(m.t === 'take' ? m : undefined));
      default:
        return;
    }
  }

  private switchTo(mode: AttachMode, size: Size | null): void {
    if (this.switching || this.mode === mode || this.ended) return;
    this.switching = true;
    this.connect(mode, size ?? undefined)
      .catch((e: unknown) => this.refused(e))
      .finally(() => (this.switching = false));
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.current?.detach();
    this.current = null;
    this.o.onEnd?.();
  }
}

export function openTerminal(o: TerminalOptions): void {
  // Failures are told to the page (refused) and close the socket: nothing else waits for it.
  void new TerminalBridge(o).start();
}

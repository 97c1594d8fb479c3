/**
 * The terminal's WebSocket and when to open it again (the view, terminal-view.tsx, draws; this
 * decides). No React and no DOM types, so the policy runs under vitest's fake timers.
 *
 * - A close the server meant (web/terminal.ts, web-server-main.ts) is final: 4401 signed out,
 *   1000 the session ended, 1011 its PTY is gone. Anything else (1006: the server stopped, the
 *   network went; 1013: the page fell too far behind) is retried with backoff: 0.5 s doubling to
 *   10 s, each wait up to a quarter shorter at random, so pages cut off together do not all come
 *   back in the same instant.
 * - A socket that never opened may have been refused over HTTP (the browser says only 1006): the
 *   page asks `signedOut()` (a 401 from /api/me) before trying again, so signed out never loops.
 * - While the page is parked (hidden, or the browser offline) no retry is timed; the page coming
 *   back (visible, online) retries at once. Nothing is timed in any other state but an attempt's
 *   own connect time-out: no wake-ups while nothing happens.
 */

/** What the view needs of a WebSocket (the browser's, or a test's stand-in). */
export interface SocketLike {
  readonly readyState: number;
  binaryType: string;
  onopen: ((e: unknown) => void) | null;
  onmessage: ((e: { data: unknown }) => void) | null;
  onclose: ((e: { code: number }) => void) | null;
  send(data: string): void;
  close(code?: number, reason?: string): void;
}

const OPEN = 1;

export type Final = 'signed-out' | 'ended' | 'gone';

export type LinkState =
  /** attempt 0: the first connection; 1…: a reconnection. */
  | { k: 'connecting'; attempt: number }
  | { k: 'open' }
  /** Waiting to try again: `attempt` is the next one's number. */
  | { k: 'down'; attempt: number }
  | { k: 'closed'; why: Final };

export interface PageSignals {
  /** Hidden or offline: retrying would only wake the device. */
  parked(): boolean;
  /** Call `fn` on visibilitychange/online/offline; returns how to stop. */
  watch(fn: () => void): () => void;
}

export interface LinkOptions {
  open: () => SocketLike;
  onMessage: (data: unknown) => void;
  onState: (s: LinkState) => void;
  /** Asked after a socket that never opened: is the page signed out? */
  signedOut: () => Promise<boolean>;
  page: PageSignals;
  random?: () => number;
}

export const FIRST_DELAY_MS = 500;
export const MAX_DELAY_MS = 10_000;
/** An attempt neither open nor closed by then is given up (a lost SYN on a new network). */
export const CONNECT_TIMEOUT_MS = 10_000;

/** The wait before reconnection `attempt` (1, 2, …). */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** Math.min(Math.max(attempt - 1, 0), 16));
  return Math.round(base * (1 - 0.25 * random()));
}

/** A close code the server sends on purpose: not to be retried. */
export function finalClose(code: number): Final | null {
  if (code === 4401) return 'signed-out';
  if (code === 1000) return 'ended';
  if (code === 1011) return 'gone';
  return null;
}

export class TerminalLink {
  private ws: SocketLike | null = null;
  private attempt = 0;
  private state: LinkState = { k: 'connecting', attempt: 0 };
  private timer: ReturnType<typeof setTimeout> | null = null;
  private unwatch: (() => void) | null = null;
  private disposed = false;

  constructor(private readonly o: LinkOptions) {}

  start(): void {
    this.unwatch = this.o.page.watch(() => this.pageChanged());
    this.connect();
  }

  get current(): LinkState {
    return this.state;
  }

  /** Sends when open; false otherwise (nothing is queued for a later socket). */
  send(text: string): boolean {
    if (this.state.k !== 'open' || this.ws?.readyState !== OPEN) return false;
    this.ws.send(text);
    return true;
  }

  /** The person's "Reconnect now": at once, from a wait or after the session ended. */
  retryNow(): void {
    if (this.disposed || this.state.k === 'connecting' || this.state.k === 'open') return;
    if (this.state.k === 'closed' && this.state.why === 'signed-out') return;
    if (this.state.k === 'closed') this.attempt = 0;
    this.connect();
  }

  dispose(): void {
    this.disposed = true;
    this.clearTimer();
    this.unwatch?.();
    this.unwatch = null;
    this.drop();
  }

  private setState(s: LinkState): void {
    this.state = s;
    this.o.onState(s);
  }

  private clearTimer(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  /** Let the current socket go without hearing from it again. */
  private drop(): void {
    const ws = this.ws;
    this.ws = null;
    if (!ws) return;
    ws.onopen = ws.onmessage = ws.onclose = null;
    ws.close();
  }

  private connect(): void {
    this.clearTimer();
    this.drop();
    this.setState({ k: 'connecting', attempt: this.attempt });
    const ws = this.o.open();
    this.ws = ws;
    let opened = false;
    this.timer = setTimeout(() => (this.drop(), this.failed(false)), CONNECT_TIMEOUT_MS);
    ws.binaryType = 'arraybuffer';
    ws.onopen = () => {
      opened = true;
      this.clearTimer();
      this.attempt = 0;
      this.setState({ k: 'open' });
    };
    ws.onmessage = (e) => this.o.onMessage(e.data);
    ws.onclose = (e) => {
      this.ws = null;
      this.clearTimer();
      const why = finalClose(e.code);
      if (why) this.setState({ k: 'closed', why });
      else this.failed(opened);
    };
  }

  /** A socket closed unexpectedly, or never opened: find out whether to try again, then wait. */
  private failed(opened: boolean): void {
    this.attempt += 1;
    this.setState({ k: 'down', attempt: this.attempt });
    if (opened) return this.schedule();
    const waiting = this.state;
    void this.o.signedOut().then(
      (out) => {
        // Anything since (a retry, a dispose) decided already.
        if (this.disposed || this.state !== waiting) return;
        if (out) this.setState({ k: 'closed', why: 'signed-out' });
        else this.schedule();
      },
      () => (this.disposed || this.state !== waiting ? undefined : this.schedule()),
    );
  }

  private schedule(): void {
    if (this.disposed || this.state.k !== 'down' || this.o.page.parked()) return;
    this.clearTimer();
    this.timer = setTimeout(() => this.connect(), backoffMs(this.attempt, this.o.random));
  }

  private pageChanged(): void {
    if (this.disposed || this.state.k !== 'down') return;
    if (this.o.page.parked()) this.clearTimer();
    else this.connect();
  }
}

/**
 * The PTY host's server: one CLI in a PTY, its screen, and the clients on its socket.
 *
 * - One controller at a time (`klaude talk`): its keys go to the CLI, its terminal size is the
 *   PTY's. A second controller gets E_SESSION_BUSY. Any number of viewers (`klaude talk --view`,
 *   the dashboard's preview) get the same output, read-only; a viewer that asks for a grid gets
 *   the screen's changed rows instead (grid-feed.ts), paced as it asked.
 * - A viewer may ask for a size (a `resize` frame: the dashboard's preview asks for its pane's):
 *   it is the PTY's while no controller is attached, so the CLI draws for the pane instead of
 *   being cut by it. A controller's size wins while it is attached; when it leaves, the size the
 *   latest viewer asked for is the PTY's again.
 * - A client that joins first gets the current screen (rendered from the headless terminal once
 *   everything before its arrival is parsed), then the output that came after, in order.
 * - With no controller, the headless terminal answers the CLI's terminal queries; with one, the
 *   person's terminal does (the queries reach it with the output).
 * - Nothing runs while the CLI is quiet: no timers, xterm parses only when output arrives.
 * The session around it (DB rows, the CLI's command line) is session.ts.
 */
import { EventEmitter } from 'node:events';
import net from 'node:net';
import {
  clearStaleSocket,
  checkSocketPathLength,
  listenPrivate,
  preparePrivateSocketDir,
  unlinkOwnSocket,
} from '../control/socket-file.js';
import type { Logger } from '../lib/logger.js';
import {
  decodeJson,
  encodeFrame,
  FRAME,
  FrameDecoder,
  PTY_PROTOCOL_VERSION,
  validSize,
  type AttachMode,
  type Hello,
  type Size,
  type Welcome,
  type WireError,
} from './framing.js';
import { GridFeed } from './grid-feed.js';
import type { PtyChild, PtyExitInfo } from './pty-process.js';
import type { HeadlessScreen } from './screen.js';

/** A viewer this far behind is dropped rather than buffered without bound. */
const MAX_CLIENT_BACKLOG = 8 * 1024 * 1024;
/** Scrollback lines sent ahead of the screen on attach (normal buffer). */
export const ATTACH_HISTORY_LINES = 500;

interface Client {
  sock: net.Socket;
  decoder: FrameDecoder;
  mode: AttachMode | null;
  /** Output that arrived while this client's screen was being rendered; null once live. */
  queue: Buffer[] | null;
  /** A grid viewer's rows (framing.ts `rows` frames), instead of the output bytes. */
  grid: GridFeed | null;
  /** The size a viewer asked for, and when (the latest asker wins). */
  fit: { size: Size; seq: number } | null;
  /** Who the client said it is (hello's `who`), to name the controller to a second one. */
  who: string | null;
}

/** The fastest a grid viewer may ask to be sent frames (ms between two). */
const MIN_GRID_MS = 8;

export interface PtyHostOptions {
  sessionId: string;
  socketPath: string;
  child: PtyChild;
  screen: HeadlessScreen;
  log: Logger;
  /** For E_SESSION_BUSY hints: how a person names this session. */
  label?: string;
}

export class PtyHost extends EventEmitter<{ exit: [PtyExitInfo] }> {
  private readonly clients = new Set<Client>();
  private controller: Client | null = null;
  private server: net.Server | null = null;
  private ino: number | null = null;
  private exitInfo: PtyExitInfo | null = null;
  private fitSeq = 0;

  constructor(private readonly o: PtyHostOptions) {
    super();
    const { child, screen } = o;
    screen.answerQueries((d) => child.write(d));
    child.onData((data) => {
      screen.write(data);
      const frame = encodeFrame(FRAME.output, data);
      for (const c of this.clients) {
        if (c.queue) c.queue.push(data);
        else if (c.grid) c.grid.changed();
        else if (c.mode) this.send(c, frame);
      }
    });
    child.onExit((e) => {
      // Let the last output reach the screen and the clients first.
      screen.whenParsed(() => this.finish(e));
    });
  }

  /** The CLI has exited (the host may still be finishing: flushing clients, closing its socket). */
  get cliExited(): boolean {
    return this.o.child.exited;
  }

  get attachedController(): boolean {
    return this.controller !== null;
  }

  async listen(): Promise<void> {
    const { socketPath } = this.o;
    checkSocketPathLength(socketPath);
    preparePrivateSocketDir(socketPath);
    await clearStaleSocket(socketPath);
    const server = net.createServer((sock) => this.accept(sock));
    this.ino = await listenPrivate(server, socketPath);
    this.server = server;
  }

  /** Ask the CLI to end (SIGTERM, then SIGKILL after `graceMs`); `exit` follows. */
  stop(graceMs: number): void {
    const { child } = this.o;
    if (child.exited) return;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
    t.unref();
    this.once('exit', () => clearTimeout(t));
  }

  private accept(sock: net.Socket): void {
    const c: Client = { sock, decoder: new FrameDecoder(), mode: null, queue: null, grid: null, fit: null, who: null };
    this.clients.add(c);
    sock.on('data', (chunk) => {
      try {
        for (const f of c.decoder.push(chunk)) this.onFrame(c, f.type, f.payload);
      } catch (err) {
        this.o.log.warn('bad frame from a PTY client; dropping it', { err });
        sock.destroy();
      }
    });
    sock.on('error', () => undefined);
    sock.on('close', () => this.drop(c));
    if (this.exitInfo) this.sendExit(c, this.exitInfo);
  }

  private onFrame(c: Client, type: number, payload: Buffer): void {
    if (c.mode === null) {
      if (type !== FRAME.hello) return this.refuse(c, { code: 'E_PROTOCOL', message: 'expected hello' });
      return this.hello(c, decodeJson<Hello>({ type, payload }));
    }
    const isController = this.controller === c;
    switch (type) {
      case FRAME.input:
        if (isController) this.o.child.write(payload);
        break;
      case FRAME.resize: {
        const size = validSize(decodeJson<Partial<Size>>({ type, payload }));
        if (!size) break;
        if (isController) this.resize(size);
        else if (c.mode === 'view') this.viewerFit(c, size);
        break;
      }
      case FRAME.detach:
        c.sock.end();
        break;
      default:
        break;
    }
  }

  private hello(c: Client, h: Hello): void {
    if (h.v !== PTY_PROTOCOL_VERSION) {
      return this.refuse(c, {
        code: 'E_PROTOCOL',
        message: `PTY protocol ${h.v} is not ${PTY_PROTOCOL_VERSION}`,
        hint: 'the session was started by another klaude version',
      });
    }
    const mode: AttachMode = h.mode === 'view' ? 'view' : 'control';
    c.who = typeof h.who === 'string' ? h.who.slice(0, 120) : null;
    if (mode === 'control') {
      if (this.controller) {
        const label = this.o.label ?? this.o.sessionId;
        const holder = this.controller.who;
        return this.refuse(c, {
          code: 'E_SESSION_BUSY',
          message: holder ? `${label} is held by ${holder}` : `${label} is attached in another terminal`,
          hint: `detach there (Ctrl-], or Release on a web page), or watch: \`klaude talk ${label} --view\``,
        });
      }
      this.controller = c;
      this.o.screen.answerQueries(null);
      const wanted = validSize(h);
      if (wanted) this.resize(wanted);
    }
    c.mode = mode;
    c.queue = [];
    const { screen, child } = this.o;
    const gridMs = mode === 'view' ? h.grid?.ms : undefined;
    if (typeof gridMs === 'number' && Number.isFinite(gridMs)) {
      c.grid = new GridFeed(
        screen,
        Math.max(MIN_GRID_MS, gridMs),
        (rows) => this.send(c, encodeFrame(FRAME.rows, rows)),
        h.grid?.moves === true,
      );
    }
    const welcome: Welcome = {
      v: PTY_PROTOCOL_VERSION,
      sessionId: this.o.sessionId,
      pid: child.pid,
      hostPid: process.pid,
      // The size the screen will have once the resize above is parsed.
      ...attachSize(h, mode, screen),
      mode,
      ...(c.grid ? { grid: true } : {}),
    };
    this.send(c, encodeFrame(FRAME.welcome, welcome));
    const history =
      typeof h.history === 'number' && h.history >= 0
        ? Math.min(h.history, ATTACH_HISTORY_LINES)
        : ATTACH_HISTORY_LINES;
    screen.whenParsed(() => {
      if (!this.clients.has(c) || c.queue === null) return; // gone, or the CLI exited meanwhile
      if (c.grid) {
        c.grid.flush();
        if (c.queue.length > 0) c.grid.changed();
        c.queue = null;
        return;
      }
      this.send(c, encodeFrame(FRAME.screen, screen.render({ history })));
      for (const data of c.queue ?? []) this.send(c, encodeFrame(FRAME.output, data));
      c.queue = null;
    });
  }

  private resize(s: Size): void {
    const { child, screen } = this.o;
    child.resize(s.cols, s.rows);
    // In order with the output: data the CLI wrote before the resize is parsed at the old size.
    screen.whenParsed(() => {
      if (screen.cols === s.cols && screen.rows === s.rows) return;
      screen.resize(s.cols, s.rows);
      const frame = encodeFrame(FRAME.resized, s);
      for (const c of this.clients) {
        if (c.grid) c.grid.changed();
        else if (c.mode === 'view') this.send(c, frame);
      }
    });
  }

  /** A viewer's size: the PTY's now unless a controller is attached (then once it leaves). */
  private viewerFit(c: Client, size: Size): void {
    c.fit = { size, seq: ++this.fitSeq };
    if (!this.controller && !this.o.child.exited) this.resize(size);
  }

  /** The size the latest viewer still connected asked for (null: none asked). */
  private latestFit(): Size | null {
    let best: Client['fit'] = null;
    for (const c of this.clients) if (c.fit && (!best || c.fit.seq > best.seq)) best = c.fit;
    return best?.size ?? null;
  }

  private refuse(c: Client, e: WireError): void {
    this.send(c, encodeFrame(FRAME.error, e));
    c.sock.end();
  }

  private send(c: Client, frame: Buffer): void {
    if (c.sock.destroyed) return;
    if (c.sock.writableLength > MAX_CLIENT_BACKLOG && c !== this.controller) {
      this.o.log.warn('PTY viewer too far behind; dropping it');
      c.sock.destroy();
      return;
    }
    // The controller is never dropped: while its socket is backed up (Ctrl-S, a slow SSH link)
    // the PTY is not read, so the CLI blocks on its full PTY buffer instead of the host
    // buffering its output without bound; reading resumes on 'drain'.
    if (!c.sock.write(frame) && c === this.controller) this.pauseFor(c);
  }

  private paused: Client | null = null;

  private pauseFor(c: Client): void {
    if (this.paused || this.o.child.exited) return;
    this.paused = c;
    this.o.child.pause();
    const resume = (): void => {
      c.sock.off('drain', resume);
      c.sock.off('close', resume);
      if (this.paused !== c) return;
      this.paused = null;
      this.o.child.resume();
    };
    c.sock.on('drain', resume);
    c.sock.on('close', resume);
  }

  /** Whether output is held back for a lagging controller (diagnostics, tests). */
  get outputPaused(): boolean {
    return this.paused !== null;
  }

  private drop(c: Client): void {
    this.clients.delete(c);
    c.grid?.close();
    if (this.controller === c) {
      this.controller = null;
      if (this.o.child.exited) return;
      this.o.screen.answerQueries((d) => this.o.child.write(d));
      const fit = this.latestFit();
      if (fit) this.resize(fit);
    }
  }

  private sendExit(c: Client, e: PtyExitInfo): void {
    this.send(c, encodeFrame(FRAME.exit, { exitCode: e.exitCode, signal: e.signal }));
    c.sock.end();
  }

  private finish(e: PtyExitInfo): void {
    if (this.exitInfo) return;
    this.exitInfo = e;
    this.o.screen.answerQueries(null);
    for (const c of this.clients) {
      if (c.grid) {
        // The last screen, then the exit (the screen has parsed everything: see the constructor).
        if (c.mode) c.grid.flush();
        c.grid.close();
        c.queue = null;
      } else if (c.queue) {
        for (const data of c.queue) this.send(c, encodeFrame(FRAME.output, data));
        c.queue = null;
      }
      this.sendExit(c, e);
    }
    const server = this.server;
    this.server = null;
    if (this.ino !== null) unlinkOwnSocket(this.o.socketPath, this.ino);
    const done = (): void => {
      this.emit('exit', e);
    };
    if (!server) return done();
    server.close(() => done());
    // Clients that don't hang up keep close() waiting: give them a moment, then cut them off.
    const t = setTimeout(() => {
      for (const c of this.clients) c.sock.destroy();
    }, 1000);
    t.unref();
  }
}

function attachSize(h: Hello, mode: AttachMode, screen: HeadlessScreen): Size {
  const s = mode === 'control' ? validSize(h) : null;
  return s ?? { cols: screen.cols, rows: screen.rows };
}

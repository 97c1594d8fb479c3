/**
 * The PTY server: one long-lived process per KLAUDE_HOME run dir that hosts every live PTY
 * session (tmux's model; one node process instead of one per session). Each session keeps its
 * own socket and protocol (a PtyHost: host.ts), so `klaude talk`, viewers and the dashboard's
 * previews don't know or care that a server hosts them; starters talk to the server's control
 * socket (protocol.ts).
 *
 * - One server per socket path: listen() is the lock. EADDRINUSE with a live listener ⇒ another
 *   server won ('running'); a stale file (a server that was SIGKILLed) is removed and listen
 *   retried once. Two starters racing over a stale file can, in a window of microseconds, end up
 *   with two servers: harmless (the DB claim still allows one writer per session; the one whose
 *   socket was replaced serves its sessions and exits after its last), so no lock file.
 * - It exits by itself IDLE_MS after its last session ended (or after it started, if nobody
 *   asked it for anything). SIGTERM/SIGINT stop every CLI (SIGTERM, SIGKILL after a grace), then
 *   it exits; SIGHUP is ignored.
 */
import { lstatSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import { shortId } from '../core/ids.js';
import type { HasSqlite } from '../db/connection.js';
import {
  checkSocketPathLength,
  listenPrivate,
  preparePrivateSocketDir,
  probeSocket,
  unlinkOwnSocket,
} from '../control/socket-file.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import type { Logger } from '../lib/logger.js';
import { CLOSING_CODE, type HostReady, type HostRequest, type ServerRequest, type WireErr } from './protocol.js';
import { startSession, STOP_GRACE_MS, type Hosted } from './session.js';

/** How long an idle server waits for a new session before it exits. */
export const IDLE_MS = 5000;
const MAX_REQUEST_BYTES = 1024 * 1024;

export interface PtyServerOptions {
  home: string;
  socketPath: string;
  db: HasSqlite;
  log: Logger;
  idleMs?: number;
}

const wireError = (e: unknown): WireErr => {
  const err = isKlaudeError(e) ? e : new KlaudeError('E_INTERNAL', (e as Error)?.message ?? String(e));
  return { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) };
};

export class PtyServer {
  private readonly sessions = new Map<string, Hosted>();
  /** Host requests being served, by session (a second request for it waits for the first). */
  private readonly starting = new Map<string, Promise<HostReady>>();
  private server: net.Server | null = null;
  private ino: number | null = null;
  private idleTimer: NodeJS.Timeout | null = null;
  private closing = false;
  private resolveClosed: () => void = () => undefined;
  /** Resolves once the server stopped listening and every session ended. */
  readonly closed = new Promise<void>((resolve) => (this.resolveClosed = resolve));

  constructor(private readonly o: PtyServerOptions) {}

  /** 'running': another server already listens on the socket (this one has nothing to do). */
  async listen(): Promise<'listening' | 'running'> {
    const { socketPath } = this.o;
    checkSocketPathLength(socketPath);
    preparePrivateSocketDir(socketPath);
    for (let attempt = 0; attempt < 2; attempt++) {
      const server = net.createServer((sock) => this.accept(sock));
      try {
        this.ino = await listenPrivate(server, socketPath);
        this.server = server;
        this.armIdle();
        return 'listening';
      } catch (e) {
        if (((e as Error).cause as NodeJS.ErrnoException | undefined)?.code !== 'EADDRINUSE') throw e;
      }
      const ino = inoOf(socketPath);
      const state = await probeSocket(socketPath);
      if (state !== 'stale') return 'running';
      // Left by a server that died; remove that very file (not one a racing server just made).
      if (ino !== null && inoOf(socketPath) === ino) {
        try {
          unlinkSync(socketPath);
        } catch {
          /* gone already */
        }
      }
    }
    return 'running';
  }

  /** The session ids hosted now (their CLIs may be on their way out). */
  list(): string[] {
    return [...this.sessions.keys()];
  }

  /** Stop one session's CLI; false when this server does not host it. */
  stop(sessionId: string): boolean {
    const h = this.sessions.get(sessionId);
    if (!h) return false;
    this.o.log.child(shortId(sessionId)).info('stopping the PTY session on request');
    h.host.stop(STOP_GRACE_MS);
    return true;
  }

  /** SIGTERM/SIGINT: stop listening, stop every CLI; `closed` resolves when they are gone. */
  shutdown(): void {
    this.o.log.info('PTY server stopping', { sessions: this.sessions.size });
    this.closeListener();
    for (const h of this.sessions.values()) h.host.stop(STOP_GRACE_MS);
    this.settleIfDone();
  }

  private accept(sock: net.Socket): void {
    let buf = '';
    sock.setEncoding('utf8');
    sock.on('error', () => undefined);
    sock.on('data', (d: string) => {
      buf += d;
      const nl = buf.indexOf('\n');
      if (nl === -1) {
        if (buf.length > MAX_REQUEST_BYTES) sock.destroy();
        return;
      }
      const line = buf.slice(0, nl);
      sock.removeAllListeners('data');
      void this.answer(line).then((reply) => sock.end(`${JSON.stringify(reply)}\n`));
    });
  }

  private async answer(line: string): Promise<object> {
    let req: ServerRequest;
    try {
      req = JSON.parse(line) as ServerRequest;
    } catch {
      return { ok: false, error: { code: 'E_PROTOCOL', message: 'a PTY server request must be one JSON line' } };
    }
    if (this.closing) return { ok: false, error: { code: CLOSING_CODE, message: 'the PTY server is exiting' } };
    switch (req?.op) {
      case 'host':
        return this.host(req);
      case 'stop':
        return { ok: true, stopped: this.stop(String(req.sessionId)) };
      case 'list':
        return { ok: true, pid: process.pid, sessions: this.list() };
      default:
        return { ok: false, error: { code: 'E_PROTOCOL', message: 'unknown PTY server request' } };
    }
  }

  private host(req: HostRequest): Promise<HostReady> {
    const id = String(req.sessionId);
    const prev = this.starting.get(id);
    const run = (prev ?? Promise.resolve()).then(() => this.hostNow(req));
    this.starting.set(id, run);
    this.disarmIdle();
    void run.finally(() => {
      if (this.starting.get(id) === run) this.starting.delete(id);
      this.settleIfDone();
    });
    return run;
  }

  private async hostNow(req: HostRequest): Promise<HostReady> {
    const ready = (h: Hosted): HostReady => ({ ok: true, pid: h.pid, hostPid: process.pid, socket: h.socket });
    try {
      const cur = this.sessions.get(req.sessionId);
      // Running: answer as is (the starter attaches; a second controller is refused there).
      if (cur && !cur.host.cliExited) return ready(cur);
      // On its way out (its CLI just exited): start afresh once its records are written.
      if (cur) await cur.done;
      if (this.closing) return { ok: false, error: { code: CLOSING_CODE, message: 'the PTY server is exiting' } };
      const h = await startSession(this.o.db, this.o.home, this.o.log, req);
      this.sessions.set(h.sessionId, h);
      // SIGTERM arrived while it was starting: it stops with the others.
      if (this.closing) h.host.stop(STOP_GRACE_MS);
      void h.done.then(() => {
        if (this.sessions.get(h.sessionId) === h) this.sessions.delete(h.sessionId);
        this.settleIfDone();
      });
      return ready(h);
    } catch (e) {
      this.o.log.child(shortId(String(req.sessionId))).error('starting a PTY session failed', { err: e });
      return { ok: false, error: wireError(e) };
    }
  }

  private busy(): boolean {
    return this.sessions.size > 0 || this.starting.size > 0;
  }

  /** Nothing hosted: wait IDLE_MS for a new session, else close. While closing: done when all ended. */
  private settleIfDone(): void {
    if (this.busy()) return;
    if (this.closing) this.finish();
    else this.armIdle();
  }

  private armIdle(): void {
    this.disarmIdle();
    this.idleTimer = setTimeout(() => {
      this.idleTimer = null;
      if (this.busy()) return;
      this.o.log.info('PTY server idle; exiting');
      this.closeListener();
      this.finish();
    }, this.o.idleMs ?? IDLE_MS);
  }

  private disarmIdle(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = null;
  }

  private closeListener(): void {
    this.closing = true;
    this.disarmIdle();
    const server = this.server;
    this.server = null;
    // Unlinked first, so a starter arriving now starts a new server instead of finding this one.
    if (this.ino !== null) unlinkOwnSocket(this.o.socketPath, this.ino);
    server?.close();
  }

  private finish(): void {
    this.resolveClosed();
  }
}

function inoOf(p: string): number | null {
  try {
    return lstatSync(p).ino;
  } catch {
    return null;
  }
}

/**
 * `klaude __web --host <h> --port <p>`: this home's web server, started detached by `klaude web`
 * (web-launch.ts). Like the PTY server it prints one line for its starter ({ok, pid, port} once it
 * listens; {error} otherwise, E_WEB_RUNNING with the running one's port when another server holds
 * the record), then serves until SIGTERM/SIGINT (`klaude web --stop`). SIGHUP is ignored.
 * Its record (ownership/web-record.ts) is the one-per-home lock and tells the answerer it is the
 * person's page.
 */
import { watch, writeSync } from 'node:fs';
import type { AddressInfo, Socket } from 'node:net';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { loadConfig } from '../config/config.js';
import { klaudeHome, logFilePath } from '../config/paths.js';
import { openFastDb } from '../db/fast.js';
import { isKlaudeError } from '../lib/errors.js';
import { createFileLogger } from '../lib/logger.js';
import { claimWebRecord, dropWebRecord, publishWebRecord, webDir } from '../ownership/web-record.js';
import { processStartTime } from '../lib/process.js';
import type { WebActions } from './actions.js';
import { createApp, requestListener } from './app.js';
import { StreamSet } from './stream-set.js';
import { Throttle } from './guard.js';
import { Hub } from './hub.js';
import { findPageDir, loadPage } from './static-files.js';
import { TokenKeeper } from './token.js';
import { PageSessions } from './page-sessions.js';
import { holdPersonKey } from '../ownership/person-key.js';
import type { WebSession } from './hub.js';
import { handleUpgrades, type WebSocketLike } from './ws-upgrade.js';

export const WEB_RUNNING = 'E_WEB_RUNNING';

type Ready =
  { ok: true; pid: number; port: number } | { ok: false; error: { code: string; message: string; port?: number } };

function report(r: Ready): void {
  try {
    writeSync(1, `${JSON.stringify(r)}\n`);
  } catch {
    /* the starter went away */
  }
}

function argOf(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i === -1 ? undefined : args[i + 1];
}

/**
 * A connection must send its request's headers within 10 s (slowloris): a timer per connection
 * while it is waiting for them, none once a request is in (an event stream may then stay quiet).
 */
function limitSlowHeaders(server: Server): void {
  server.on('connection', (sock: Socket) => {
    sock.setTimeout(10_000, () => sock.destroy());
  });
  server.on('request', (req: IncomingMessage) => {
    req.socket.setTimeout(0);
  });
}

/**
 * A new token (`klaude web --rotate-token`, which also ends every page's session) ends every open
 * stream: their pages are signed out.
 */
function signOutOnRotation(home: string, tokens: TokenKeeper, streams: StreamSet): () => void {
  let token = tokens.current();
  try {
    const w = watch(webDir(home), { persistent: false }, (_t, name) => {
      if (String(name) !== 'token') return;
      const now = tokens.current();
      if (now === token) return;
      token = now;
      streams.closeAll();
    });
    w.on('error', () => undefined);
    return () => w.close();
  } catch {
    return () => undefined;
  }
}

/** A page's terminal (terminal.ts, loaded with the first one), counted with the open streams. */
function terminalOpener(
  home: string,
  env: NodeJS.ProcessEnv,
  streams: StreamSet,
): (ws: WebSocketLike, s: WebSession, who: string) => void {
  return (ws, s, who) => {
    const forget = streams.add(() => ws.close(4401, 'signed out'));
    void Promise.all([import('./terminal.js'), import('../ptyd/socket-path.js')])
      .then(([{ openTerminal }, { ptySocketPath }]) =>
        openTerminal({ ws, who, socketPath: ptySocketPath(home, s.projectId, s.id, env), onEnd: forget }),
      )
      // Loading failed (a broken install): the page sees the socket close.
      .catch(() => (forget(), ws.close(1011, 'internal error')));
  };
}

/** The actions module and a full (drizzle) DB, on the first action; the DB is closed at exit. */
async function loadActions(
  home: string,
  env: NodeJS.ProcessEnv,
  toClose: { close(): void }[],
  changed: () => void,
): Promise<WebActions> {
  const [{ openDb }, { WebActions: Actions }] = await Promise.all([import('../db/client.js'), import('./actions.js')]);
  const full = openDb(home);
  toClose.push(full);
  return new Actions({ db: full, home, env, changed });
}

/**
 * The server's key (ownership/person-key.ts), sent with the answers of its pages: where a runtime
 * cannot ask the kernel who sent one, it is what proves the server. Without it the pages still
 * answer where the kernel can be asked (Linux).
 */
function holdKey(home: string, env: NodeJS.ProcessEnv, log: { warn(m: string, d?: object): void }): () => void {
  try {
    return holdPersonKey(home, env, 'web').release;
  } catch (err) {
    log.warn('no web server key: answers count only where the runtime can ask who sent them', { err });
    return () => undefined;
  }
}

/** node:http serving the app (and its WebSocket upgrades), listening. */
async function listen(handler: RequestListener, host: string, port: number): Promise<Server> {
  // node:http checks its connections' timeouts on a 30 s interval by default: a wake-up while
  // nothing happens. Header and request time limits are per connection instead (limitSlowHeaders).
  const server = createServer(
    { connectionsCheckingInterval: 2 ** 31 - 1, requestTimeout: 0, headersTimeout: 0 },
    handler,
  );
  // Bounded: a page holds two or three connections; a flood finds the door shut.
  server.maxConnections = 64;
  limitSlowHeaders(server);
  handleUpgrades(server, handler);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return server;
}

export async function webServerMain(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const home = klaudeHome(env);
  const log = createFileLogger(logFilePath(home), 'web', env);
  process.stdout.on('error', () => undefined);
  const host = argOf(args, '--host') ?? '127.0.0.1';
  const wanted = Number(argOf(args, '--port') ?? '0');
  const allowHosts = (argOf(args, '--allow-host') ?? '').split(',').filter(Boolean);
  const claim = claimWebRecord(home, host);
  if (!claim.claimed) {
    report({ ok: false, error: { code: WEB_RUNNING, message: 'a web server already runs', port: claim.running.port } });
    return 0;
  }
  // No drizzle until the first action (as the PTY server: the starter has migrated the DB).
  const db = openFastDb(home) ?? (await import('../db/client.js')).openDb(home);
  const toClose: { close(): void }[] = [];
  const releaseKey = holdKey(home, env, log);
  try {
    const { config } = loadConfig(home);
    const tokens = new TokenKeeper(home);
    const hub = new Hub(db);
    const streams = new StreamSet();
    const unwatch = signOutOnRotation(home, tokens, streams);
    let port = 0;
    let actions: Promise<WebActions> | undefined;
    const app = createApp({
      db,
      home,
      logsDir: config['logs.dir'],
      hub,
      actions: () => (actions ??= loadActions(home, env, toClose, () => hub.refresh())),
      page: loadPage(findPageDir()),
      streams,
      maxStreams: 32,
      terminal: terminalOpener(home, env, streams),
      port: () => port,
      allowHosts,
      tokens,
      pages: new PageSessions(home),
      throttle: new Throttle(),
    });
    const server = await listen(requestListener(app), host, wanted);
    port = (server.address() as AddressInfo).port;
    publishWebRecord(home, {
      pid: process.pid,
      pidStart: processStartTime(process.pid),
      host,
      port,
      startedAt: Date.now(),
      ...(allowHosts.length ? { allowHosts } : {}),
    });
    log.info('web server started', { host, port });
    report({ ok: true, pid: process.pid, port });
    await new Promise<void>((resolve) => {
      process.on('SIGTERM', resolve);
      process.on('SIGINT', resolve);
      process.on('SIGHUP', () => undefined);
    });
    unwatch();
    hub.close();
    server.close();
    server.closeAllConnections();
    log.info('web server stopped');
    return 0;
  } catch (e) {
    log.error('web server failed', { err: e });
    const code = isKlaudeError(e) ? e.code : ((e as NodeJS.ErrnoException)?.code ?? 'E_INTERNAL');
    report({ ok: false, error: { code, message: (e as Error)?.message ?? String(e) } });
    return 1;
  } finally {
    releaseKey();
    dropWebRecord(home);
    for (const c of toClose) c.close();
    db.close();
    setTimeout(() => process.exit(0), 1000).unref();
  }
}

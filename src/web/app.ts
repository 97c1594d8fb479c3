/**
 * The web server's routes (hono): the page's files, sign-in, the live state and a session's log
 * as server-sent events, and the actions. The gate is guard.ts; what an action does is actions.ts.
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, setCookie } from 'hono/cookie';
import { streamSSE } from 'hono/streaming';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import type { HasSqlite } from '../db/connection.js';
import { randomBytes } from 'node:crypto';
import { apiGuard, COOKIE, csp, hostCheck, sameOrigin, securityHeaders, tooSoon, type GuardOptions } from './guard.js';
import { redeemLink } from './links.js';
import type { Hub } from './hub.js';
import { readStatic, type StaticFile } from './static-files.js';
import type { WebActions, AnswerBody, StartBody } from './actions.js';
import { streamTimeline } from './log-stream.js';
import type { UpgradeEnv, WebSocketLike } from './ws-upgrade.js';
import type { WebSession } from './hub.js';

export interface AppDeps extends GuardOptions {
  db: HasSqlite;
  home: string;
  logsDir: string | null;
  hub: Hub;
  /** Loaded on the first action (drizzle and the agent services: a server only watched never pays for them). */
  actions: () => Promise<WebActions>;
  page: Map<string, StaticFile>;
  /** The open event streams (closed all at once when the token changes). */
  streams: StreamSet;
  /** Open event streams at most (each holds a connection). */
  maxStreams: number;
  /** Put an accepted WebSocket through to a PTY session's terminal (web/terminal.ts, loaded on first use). */
  terminal: (ws: WebSocketLike, s: WebSession, who: string) => void;
}

/** Where the page's HTML asks for its per-response style nonce (guard.ts `csp`). */
const NONCE_MARK = '__KLAUDE_STYLE_NONCE__';

/** A KlaudeError becomes 4xx with its code, message and hint; anything else 500. */
function failure(c: Context, e: unknown): Response {
  if (isKlaudeError(e)) {
    const status =
      e.code === 'E_SESSION_NOT_FOUND' || e.code === 'E_NO_PROJECT' ? 404 : e.code === 'E_BAD_REQUEST' ? 400 : 409;
    return c.json({ error: { code: e.code, message: e.message, ...(e.hint ? { hint: e.hint } : {}) } }, status);
  }
  return c.json({ error: { code: 'E_INTERNAL', message: (e as Error)?.message ?? String(e) } }, 500);
}

async function jsonBody<T>(c: Context): Promise<T> {
  try {
    return (await c.req.json()) as T;
  } catch {
    return {} as T;
  }
}

export type App = Hono<{ Bindings: UpgradeEnv }>;

export function createApp(d: AppDeps): App {
  const app: App = new Hono<{ Bindings: UpgradeEnv }>();
  app.use('*', securityHeaders());
  app.use('*', hostCheck(d));
  app.use(
    '/api/*',
    bodyLimit({ maxSize: 64 * 1024, onError: (c) => c.json({ error: { code: 'E_WEB_TOO_BIG' } }, 413) }),
  );
  app.use('/api/*', apiGuard(d));
  servePage(app, d);
  signIn(app, d);
  liveRoutes(app, d);
  terminalRoute(app, d);
  actionRoutes(app, d);
  return app;
}

/**
 * A PTY session's terminal, as a WebSocket. The upgrade comes through this app like any request
 * (ws-upgrade.ts): Host, cookie and Origin are checked by the same middleware; this route only
 * says yes (204, and `accept` is called) or why not.
 */
function terminalRoute(app: App, d: AppDeps): void {
  app.get('/api/sessions/:id/terminal', (c) => {
    const accept = c.env?.wsAccept;
    if (!accept) return c.json({ error: { code: 'E_WEB_UPGRADE', message: 'the terminal is a WebSocket' } }, 426);
    if (d.streams.size >= d.maxStreams)
      return c.json({ error: { code: 'E_WEB_BUSY', message: 'too many open pages' } }, 503);
    const session = d.hub.session(c.req.param('id'));
    if (!session) return c.json({ error: { code: 'E_SESSION_NOT_FOUND', message: 'no such session' } }, 404);
    if (!session.pty)
      return c.json(
        {
          error: {
            code: 'E_AGENT_NOT_RUNNING',
            message: 'not running in a PTY session',
            hint: `\`klaude talk ${session.id.slice(-8)}\` starts one`,
          },
        },
        409,
      );
    accept((ws) => d.terminal(ws, session, `a web page (klaude web, from ${c.env.remote ?? 'unknown'})`));
    return c.body(null, 204);
  });
}

function servePage(app: App, d: AppDeps): void {
  app.get('/*', (c, next) => {
    const f = d.page.get(c.req.path);
    if (!f) return next();
    c.header('Cache-Control', 'no-cache');
    c.header('Content-Type', f.type);
    if (f.type.startsWith('text/html')) {
      const html = readStatic(f, false);
      if (!html) return next();
      const nonce = randomBytes(16).toString('base64');
      c.header('Content-Security-Policy', csp(nonce));
      return c.body(html.body.toString('utf8').replaceAll(NONCE_MARK, nonce));
    }
    const r = readStatic(f, /\bgzip\b/.test(c.req.header('accept-encoding') ?? ''));
    if (!r) return next();
    c.header('Vary', 'Accept-Encoding');
    if (r.gzip) c.header('Content-Encoding', 'gzip');
    return c.body(new Uint8Array(r.body));
  });
}

function signIn(app: App, d: AppDeps): void {
  app.post('/api/login', async (c) => {
    if (!sameOrigin(c, false)) return c.json({ error: { code: 'E_WEB_ORIGIN', message: 'refused' } }, 403);
    const wait = d.throttle.wait();
    if (wait > 0) return tooSoon(c, wait);
    const { token } = await jsonBody<{ token?: string }>(c);
    if (typeof token !== 'string' || !redeemLink(d.home, token)) {
      d.throttle.fail();
      return c.json(
        {
          error: {
            code: 'E_WEB_LINK',
            message: 'this sign-in link was already used, has expired, or is not one of this server’s',
            hint: 'run `klaude web` for a fresh link (`klaude web --rotate-token` also signs every page out)',
          },
        },
        401,
      );
    }
    d.throttle.succeed();
    setCookie(c, COOKIE, d.tokens.cookieValue(), { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.json({ ok: true });
  });
  app.post('/api/logout', (c) => {
    deleteCookie(c, COOKIE, { path: '/' });
    return c.json({ ok: true });
  });
  app.get('/api/me', (c) => c.json({ ok: true, home: d.home }));
}

/** Every open event stream, to count them and to end them all (a new token signs every page out). */
export class StreamSet {
  private open = new Set<() => void>();

  get size(): number {
    return this.open.size;
  }

  add(end: () => void): () => void {
    this.open.add(end);
    return () => this.open.delete(end);
  }

  closeAll(): void {
    for (const end of [...this.open]) end();
  }
}

function liveRoutes(app: App, d: AppDeps): void {
  const limited = (c: Context): Response | null =>
    d.streams.size >= d.maxStreams
      ? c.json({ error: { code: 'E_WEB_BUSY', message: 'too many open pages' } }, 503)
      : null;
  app.get('/api/state', (c) => c.json(d.hub.current));
  app.get('/api/events', (c) => {
    const full = limited(c);
    if (full) return full;
    const last = Number(c.req.header('last-event-id') ?? NaN);
    return streamSSE(c, async (s) => {
      const forget = d.streams.add(() => s.abort());
      let open = true;
      const send = (st: typeof d.hub.current): void => {
        if (open) void s.writeSSE({ event: 'state', id: String(st.version), data: JSON.stringify(st) });
      };
      const stop = d.hub.subscribe(send);
      // A reconnect that already has the latest state gets nothing until the next change.
      if (last !== d.hub.current.version) send(d.hub.current);
      await new Promise<void>((resolve) => s.onAbort(resolve));
      open = false;
      stop();
      forget();
    });
  });
  app.get('/api/sessions/:id/log', (c) => {
    const full = limited(c);
    if (full) return full;
    const session = d.hub.session(c.req.param('id'));
    if (!session) return c.json({ error: { code: 'E_SESSION_NOT_FOUND', message: 'no such session' } }, 404);
    const resume = c.req.header('last-event-id');
    return streamSSE(c, async (s) => {
      const ac = new AbortController();
      const forget = d.streams.add(() => s.abort());
      s.onAbort(() => ac.abort());
      try {
        await streamTimeline({
          db: d.db,
          home: d.home,
          logsDir: d.logsDir,
          session,
          ...(resume !== undefined ? { resume } : {}),
          signal: ac.signal,
          onReset: () => void s.writeSSE({ event: 'reset', data: '{}' }),
          onEvent: (e, id) => void s.writeSSE({ event: 'event', data: JSON.stringify(e), ...(id ? { id } : {}) }),
          onHistoryEnd: (id) => void s.writeSSE({ event: 'history-end', data: '{}', id }),
        });
        await new Promise<void>((resolve) =>
          ac.signal.aborted ? resolve() : ac.signal.addEventListener('abort', () => resolve()),
        );
      } finally {
        forget();
      }
    });
  });
}

function actionRoutes(app: App, d: AppDeps): void {
  const act = (fn: (c: Context, id: string, a: WebActions) => Promise<unknown>) => async (c: Context) => {
    try {
      return c.json({ ok: true, result: (await fn(c, c.req.param('id') ?? '', await d.actions())) ?? null });
    } catch (e) {
      return failure(c, e);
    }
  };
  app.post(
    '/api/sessions/:id/approve',
    act(async (c, id, a) => {
      const b = await jsonBody<{ always?: boolean; request?: string }>(c);
      const body: AnswerBody = {
        behavior: 'allow',
        always: b.always === true,
        ...(b.request ? { request: b.request } : {}),
      };
      return a.answer(id, body);
    }),
  );
  app.post(
    '/api/sessions/:id/deny',
    act(async (c, id, a) => {
      const b = await jsonBody<{ message?: string; request?: string }>(c);
      const body: AnswerBody = {
        behavior: 'deny',
        ...(b.message ? { message: String(b.message) } : {}),
        ...(b.request ? { request: b.request } : {}),
      };
      return a.answer(id, body);
    }),
  );
  app.post(
    '/api/sessions/:id/message',
    act(async (c, id, a) => {
      const { prompt } = await jsonBody<{ prompt?: string }>(c);
      if (typeof prompt !== 'string' || prompt.trim() === '') throw badRequest('a message needs text');
      return a.message(id, prompt);
    }),
  );
  app.post(
    '/api/sessions/:id/interrupt',
    act((_c, id, a) => a.interrupt(id)),
  );
  app.post(
    '/api/sessions/:id/archive',
    act(async (c, id, a) => a.archive(id, (await jsonBody<{ restore?: boolean }>(c)).restore === true)),
  );
  app.post(
    '/api/sessions/:id/merge',
    act((_c, id, a) => a.merge(id)),
  );
  app.get(
    '/api/sessions/:id/diff',
    act((_c, id, a) => a.diff(id, d.home, d.logsDir)),
  );
  app.post(
    '/api/start',
    act(async (c, _id, a) => {
      const b = await jsonBody<Partial<StartBody>>(c);
      if (
        typeof b.project !== 'string' ||
        typeof b.type !== 'string' ||
        typeof b.prompt !== 'string' ||
        b.prompt.trim() === ''
      )
        throw badRequest('start needs a project, a type and a prompt');
      const r = await a.start(b as StartBody);
      return { sessionIds: r.sessions.map((s) => s.id), notes: r.notes, queued: r.queued };
    }),
  );
}

function badRequest(message: string): KlaudeError {
  return new KlaudeError('E_BAD_REQUEST', message);
}

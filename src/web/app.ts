/**
 * The web server's routes (polka over node:http, see http-io.ts for why not a Fetch-API framework):
 * the page's files, sign-in, the live state and a session's log as server-sent events, and the
 * actions. The gate is guard.ts; what an action does is actions.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import polka, { type NextHandler, type Polka } from 'polka';
import { randomBytes } from 'node:crypto';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import type { HasSqlite } from '../db/connection.js';
import { apiGuard, COOKIE, csp, hostCheck, sameOrigin, securityHeaders, tooSoon, type GuardOptions } from './guard.js';
import {
  BodyTooBig,
  clearCookie,
  cookieOf,
  header,
  jsonOf,
  openEventStream,
  readBody,
  sendBody,
  sendJson,
  sendProblem,
  setSessionCookie,
  type Req,
  type Res,
} from './http-io.js';
import { redeemLink } from './links.js';
import { agentBehind, clientAddress } from './peer-check.js';
import type { PeerSource } from '../lib/socket-peer.js';
import type { Hub } from './hub.js';
import { readStatic, type StaticFile } from './static-files.js';
import type { WebActions, AnswerBody, StartBody } from './actions.js';
import { streamTimeline } from './log-stream.js';
import type { UpgradeRequest, WebSocketLike } from './ws-upgrade.js';
import type { WebSession } from './hub.js';
import type { StreamSet } from './stream-set.js';
import { MAX_IMAGE_BYTES, MAX_IMAGES } from '../core/image.js';

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
  /** Where a local client's pid is asked (peer-check.ts; tests hide `ss` with their own). */
  peerSource?: PeerSource;
}

/** Where the page's HTML asks for its per-response style nonce (guard.ts `csp`). */
const NONCE_MARK = '__KLAUDE_STYLE_NONCE__';

/** A state change's body, at most this many bytes (413 past it). */
const MAX_BODY = 64 * 1024;
/** A message's body may carry images (base64: 4/3 of their bytes), so its own route takes that much more. */
const MAX_MESSAGE_BODY = MAX_BODY + Math.ceil((MAX_IMAGES * MAX_IMAGE_BYTES * 4) / 3);
const bodyLimit = (path: string): number =>
  /^\/api\/sessions\/[^/]+\/message$/.test(path) ? MAX_MESSAGE_BODY : MAX_BODY;

/** A KlaudeError becomes 4xx with its code, message and hint; anything else 500. */
function failure(res: Res, e: unknown): void {
  if (isKlaudeError(e)) {
    const status =
      e.code === 'E_SESSION_NOT_FOUND' || e.code === 'E_NO_PROJECT' ? 404 : e.code === 'E_BAD_REQUEST' ? 400 : 409;
    return sendProblem(res, status, e.code, e.message, e.hint);
  }
  sendProblem(res, 500, 'E_INTERNAL', (e as Error)?.message ?? String(e));
}

export type App = Polka;

export function createApp(d: AppDeps): App {
  const app = polka({
    onNoMatch: (req, res) => sendProblem(res, 404, 'E_WEB_NOT_FOUND', `nothing at ${req.path}`),
    onError: (err, _req, res) => {
      if (res.headersSent) res.destroy();
      else failure(res, err);
    },
  });
  app.use(securityHeaders());
  app.use(hostCheck(d));
  app.use(apiGuard(d));
  app.use(readBodies);
  servePage(app, d);
  signIn(app, d);
  liveRoutes(app, d);
  terminalRoute(app, d);
  actionRoutes(app, d);
  reviewRoutes(app, d);
  return app;
}

/** The app as node:http's request listener (polka's handler makes its own `next` when given none). */
export function requestListener(app: App): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => void app.handler(req as Req, res, undefined as unknown as NextHandler);
}

/** A state change's body is read (bounded) once the request is let in; routes read `req.body`. */
async function readBodies(req: Req, res: Res, next: () => void): Promise<void> {
  if (req.method !== 'POST' || !req.path.startsWith('/api/')) return next();
  const limit = bodyLimit(req.path);
  try {
    req.body = await readBody(req, limit);
  } catch (e) {
    if (e instanceof BodyTooBig) {
      res.shouldKeepAlive = false;
      return sendProblem(res, 413, 'E_WEB_TOO_BIG', `a request's body is at most ${Math.floor(limit / 1024)} KiB`);
    }
    throw e;
  }
  return next();
}

const busy = (res: Res): void => sendProblem(res, 503, 'E_WEB_BUSY', 'too many open pages');

/**
 * A PTY session's terminal, as a WebSocket. The upgrade comes through this app like any request
 * (ws-upgrade.ts): Host, cookie and Origin are checked by the same middleware; this route only
 * says yes (`accept` is called and the socket handed over) or why not.
 */
function terminalRoute(app: App, d: AppDeps): void {
  app.get('/api/sessions/:id/terminal', (req: Req & UpgradeRequest, res: Res) => {
    const accept = req.wsAccept;
    if (!accept) return sendProblem(res, 426, 'E_WEB_UPGRADE', 'the terminal is a WebSocket');
    if (d.streams.size >= d.maxStreams) return busy(res);
    const session = d.hub.session(req.params.id!);
    if (!session) return sendProblem(res, 404, 'E_SESSION_NOT_FOUND', 'no such session');
    if (!session.pty)
      return sendProblem(
        res,
        409,
        'E_AGENT_NOT_RUNNING',
        'not running in a PTY session',
        `\`klaude talk ${session.id.slice(-8)}\` starts one`,
      );
    const from = req.socket.remoteAddress ?? 'unknown';
    accept((ws) => d.terminal(ws, session, `a web page (klaude web, from ${from})`));
  });
}

function servePage(app: App, d: AppDeps): void {
  app.use((req: Req, res: Res, next: () => void) => {
    const f = req.method === 'GET' || req.method === 'HEAD' ? d.page.get(req.path) : undefined;
    if (!f) return next();
    res.setHeader('Cache-Control', 'no-cache');
    if (f.type.startsWith('text/html')) {
      const html = readStatic(f, false);
      if (!html) return next();
      const nonce = randomBytes(16).toString('base64');
      res.setHeader('Content-Security-Policy', csp(nonce));
      return sendBody(res, html.body.toString('utf8').replaceAll(NONCE_MARK, nonce), f.type);
    }
    const r = readStatic(f, /\bgzip\b/.test(header(req, 'accept-encoding') ?? ''));
    if (!r) return next();
    res.setHeader('Vary', 'Accept-Encoding');
    if (r.gzip) res.setHeader('Content-Encoding', 'gzip');
    return sendBody(res, r.body, f.type);
  });
}

/**
 * A page signs in with a one-time link (links.ts) and gets a session of its own, which carries who
 * made the link (page-sessions.ts). A sign-in sent from inside an agent on this machine is refused
 * and spends the link: a link an agent has seen is no longer safe.
 */
function signIn(app: App, d: AppDeps): void {
  app.post('/api/login', (req: Req, res: Res) => {
    if (!sameOrigin(req, false)) return sendProblem(res, 403, 'E_WEB_ORIGIN', 'refused');
    const wait = d.throttle.wait();
    if (wait > 0) return tooSoon(res, wait);
    const { token } = jsonOf<{ token?: string }>(req.body);
    const owner = typeof token === 'string' ? redeemLink(d.home, token) : null;
    if (!owner) {
      d.throttle.fail();
      return sendProblem(
        res,
        401,
        'E_WEB_LINK',
        'this sign-in link was already used, has expired, or is not one of this server’s',
        'run `klaude web` for a fresh link (`klaude web --rotate-token` also signs every page out)',
      );
    }
    const agent = agentBehind(req, d.db, d.peerSource);
    if (agent) return fromAgent(res, `sign-in refused (the link is spent): ${agent}`);
    d.throttle.succeed();
    setSessionCookie(res, COOKIE, d.pages.create(owner, clientAddress(req)));
    return sendJson(res, 200, { ok: true });
  });
  app.post('/api/logout', (req: Req, res: Res) => {
    const cookie = cookieOf(req, COOKIE);
    if (cookie) d.pages.end(cookie);
    clearCookie(res, COOKIE);
    sendJson(res, 200, { ok: true });
  });
  app.get('/api/me', (req: Req, res: Res) => {
    const p = req.pageSession;
    sendJson(res, 200, {
      ok: true,
      home: d.home,
      ...(p ? { signedIn: { from: p.from, at: p.signedInAt, link: `made ${p.place}` } } : {}),
    });
  });
}

function fromAgent(res: Res, message: string): void {
  sendProblem(res, 403, 'E_WEB_FROM_AGENT', message, 'the person opens the page in a browser of their own');
}

function liveRoutes(app: App, d: AppDeps): void {
  app.get('/api/state', (_req: Req, res: Res) => sendJson(res, 200, d.hub.current));
  app.get('/api/events', async (req: Req, res: Res) => {
    if (d.streams.size >= d.maxStreams) return busy(res);
    const last = header(req, 'last-event-id');
    const s = openEventStream(res);
    const forget = d.streams.add(() => s.close());
    const send = (st: typeof d.hub.current): void => s.send('state', JSON.stringify(st), d.hub.eventId(st));
    const stop = d.hub.subscribe(send);
    // A reconnect that already has the latest state of this very server gets nothing until the next change.
    if (last !== d.hub.eventId(d.hub.current)) send(d.hub.current);
    await s.closed;
    stop();
    forget();
  });
  app.get('/api/sessions/:id/log', async (req: Req, res: Res) => {
    if (d.streams.size >= d.maxStreams) return busy(res);
    const session = d.hub.session(req.params.id!);
    if (!session) return sendProblem(res, 404, 'E_SESSION_NOT_FOUND', 'no such session');
    const resume = header(req, 'last-event-id');
    const s = openEventStream(res);
    const ac = new AbortController();
    const forget = d.streams.add(() => s.close());
    void s.closed.then(() => ac.abort());
    try {
      await streamTimeline({
        db: d.db,
        home: d.home,
        logsDir: d.logsDir,
        session,
        ...(resume !== undefined ? { resume } : {}),
        signal: ac.signal,
        onReset: () => s.send('reset', '{}'),
        onEvent: (e, id) => s.send('event', JSON.stringify(e), id),
        onHistoryEnd: (id) => s.send('history-end', '{}', id),
      });
      await s.closed;
    } finally {
      forget();
    }
  });
}

type Action = (req: Req, id: string, a: WebActions) => Promise<unknown>;

/**
 * An answer to a permission request is the person's verb: it needs a signed-in page (the bearer
 * token proves only that its file was read, which any process of yours can), not sent from
 * inside an agent; the runtime records what the page's sign-in proved.
 */
function answerRoute(d: AppDeps, body: (req: Req) => AnswerBody): (req: Req, res: Res) => Promise<void> {
  return async (req, res) => {
    const page = req.pageSession;
    if (!page)
      return sendProblem(
        res,
        403,
        'E_APPROVAL_BY_PERSON',
        'permission requests are answered from a signed-in page, not with the bearer token',
        'open a link `klaude web` prints in your terminal, or answer with `klaude approve`/`deny` there',
      );
    const agent = agentBehind(req, d.db, d.peerSource);
    if (agent) return fromAgent(res, `answer refused: ${agent}`);
    try {
      const result = await (await d.actions()).answer(req.params.id ?? '', body(req), page);
      sendJson(res, 200, { ok: true, result });
    } catch (e) {
      failure(res, e);
    }
  };
}

/** A route running one action: its result as `{ok, result}`, or the error as the CLI would say it. */
const actOf =
  (d: AppDeps) =>
  (fn: Action) =>
  async (req: Req, res: Res): Promise<void> => {
    try {
      sendJson(res, 200, { ok: true, result: (await fn(req, req.params.id ?? '', await d.actions())) ?? null });
    } catch (e) {
      failure(res, e);
    }
  };
const body = <T>(req: Req): T => jsonOf<T>(req.body as Buffer | undefined);
/** The signed-in page a request came from (null: the bearer token): actions run as its person. */
const by = (req: Req): NonNullable<Req['pageSession']> | null => req.pageSession ?? null;

function actionRoutes(app: App, d: AppDeps): void {
  const act = actOf(d);
  app.post(
    '/api/sessions/:id/approve',
    answerRoute(d, (req) => {
      const b = body<{ always?: boolean; request?: string }>(req);
      return { behavior: 'allow', always: b.always === true, ...(b.request ? { request: b.request } : {}) };
    }),
  );
  app.post(
    '/api/sessions/:id/deny',
    answerRoute(d, (req) => {
      const b = body<{ message?: string; request?: string }>(req);
      return {
        behavior: 'deny',
        ...(b.message ? { message: String(b.message) } : {}),
        ...(b.request ? { request: b.request } : {}),
      };
    }),
  );
  app.post(
    '/api/sessions/:id/message',
    act((req, id, a) => {
      const { prompt, images } = body<{ prompt?: string; images?: unknown }>(req);
      const text = typeof prompt === 'string' ? prompt : '';
      if (text.trim() === '' && !(Array.isArray(images) && images.length > 0))
        throw badRequest('a message needs text or an image');
      return a.message(id, text, images, by(req));
    }),
  );
  app.post(
    '/api/sessions/:id/interrupt',
    act((req, id, a) => a.interrupt(id, by(req))),
  );
  app.post(
    '/api/sessions/:id/archive',
    act((req, id, a) => a.archive(id, body<{ restore?: boolean }>(req).restore === true, by(req))),
  );
  app.post(
    '/api/sessions/:id/merge',
    act((req, id, a) => a.merge(id, by(req))),
  );
  app.get(
    '/api/sessions/:id/diff',
    act((req, id, a) => a.diff(id, d.home, d.logsDir, by(req))),
  );
  app.post(
    '/api/start',
    act(async (req, _id, a) => {
      const b = body<Partial<StartBody>>(req);
      if (
        typeof b.project !== 'string' ||
        typeof b.type !== 'string' ||
        typeof b.prompt !== 'string' ||
        b.prompt.trim() === ''
      )
        throw badRequest('start needs a project, a type and a prompt');
      if (b.priority !== undefined && !['high', 'normal', 'low'].includes(b.priority))
        throw badRequest('priority is high, normal or low');
      if (b.sandbox !== undefined && b.sandbox !== 'on' && b.sandbox !== 'off')
        throw badRequest("sandbox is on or off (absent: the type's or the config's)");
      if (b.skill !== undefined && typeof b.skill !== 'string') throw badRequest('skill is a name');
      const r = await a.start(b as StartBody, by(req));
      return { sessionIds: r.sessions.map((s) => s.id), notes: r.notes, queued: r.queued };
    }),
  );
}

/** `klaude review` from the page: start a reviewer (`by`: a runtime or an agent type), send findings. */
function reviewRoutes(app: App, d: AppDeps): void {
  const act = actOf(d);
  app.post(
    '/api/sessions/:id/review',
    act((req, id, a) => {
      const reviewer = body<{ by?: unknown }>(req).by;
      const list = typeof reviewer === 'string' && reviewer.trim() ? [reviewer.trim()] : [];
      if (list.some((b) => !/^[\w.:-]+$/.test(b))) throw badRequest('by names a runtime or an agent type');
      return a.startReview(id, list, by(req));
    }),
  );
  app.post(
    '/api/sessions/:id/review/send',
    act((req, id, a) => a.sendReview(id, by(req))),
  );
}

function badRequest(message: string): KlaudeError {
  return new KlaudeError('E_BAD_REQUEST', message);
}

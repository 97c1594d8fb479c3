/**
 * Reading requests and writing answers on node's own request/response objects. The server is built
 * on node:http with polka for routing rather than on the Fetch API: on Node 20 the first use of
 * `Request`, `Response` or `Headers` loads undici and compiles its HTTP parser, ~12 MiB resident
 * that a server which only answers never needs (issue 24's idle goal is 60 MiB).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { Request } from 'polka';
import type { PageSession } from '../ownership/web-sessions.js';

/** A request; `pageSession` is the signed-in page it came from (set by the gate, guard.ts), if any. */
export type Req = Request & { pageSession?: PageSession };
export type Res = ServerResponse;

export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name.toLowerCase()];
  return Array.isArray(v) ? v.join(', ') : v;
}

export function sendJson(res: Res, status: number, body: unknown): void {
  const data = Buffer.from(JSON.stringify(body));
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', data.length);
  res.end(data);
}

/** A refusal or a failure: `{ error: { code, message, hint? } }`. */
export function sendProblem(res: Res, status: number, code: string, message: string, hint?: string): void {
  sendJson(res, status, { error: { code, message, ...(hint ? { hint } : {}) } });
}

export function sendBody(res: Res, body: Buffer | string, type: string): void {
  const data = typeof body === 'string' ? Buffer.from(body) : body;
  res.setHeader('Content-Type', type);
  res.setHeader('Content-Length', data.length);
  res.end(data);
}

export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const raw = req.headers.cookie;
  return raw ? parseCookie(raw)[name] : undefined;
}

export function setSessionCookie(res: Res, name: string, value: string): void {
  res.appendHeader('Set-Cookie', stringifySetCookie({ name, value, httpOnly: true, sameSite: 'strict', path: '/' }));
}

export function clearCookie(res: Res, name: string): void {
  res.appendHeader(
    'Set-Cookie',
    stringifySetCookie({
      name,
      value: '',
      path: '/',
      maxAge: 0,
      expires: new Date(0),
      httpOnly: true,
      sameSite: 'strict',
    }),
  );
}

export class BodyTooBig extends Error {}

/** The request's body, at most `max` bytes (BodyTooBig past it: the client is told 413). */
export function readBody(req: IncomingMessage, max: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > max) return Promise.reject(new BodyTooBig());
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.removeAllListeners('data');
        req.resume();
        reject(new BodyTooBig());
      } else parts.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(parts)));
    req.on('error', reject);
  });
}

/** The body as JSON; a body that is not an object reads as `{}` (each route says what it misses). */
export function jsonOf<T>(body: Buffer | undefined): T {
  try {
    const v: unknown = JSON.parse(body?.toString('utf8') ?? '');
    return (v !== null && typeof v === 'object' ? v : {}) as T;
  } catch {
    return {} as T;
  }
}

export interface EventStream {
  send(event: string, data: string, id?: string): void;
  close(): void;
  /** Resolves when the page goes away or `close` is called. */
  readonly closed: Promise<void>;
}

/** A server-sent event stream on this response (the page reconnects with Last-Event-ID). */
export function openEventStream(res: Res): EventStream {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    Connection: 'keep-alive',
  });
  res.flushHeaders();
  let open = true;
  const closed = new Promise<void>((resolve) =>
    res.once('close', () => {
      open = false;
      resolve();
    }),
  );
  return {
    send(event, data, id) {
      if (!open) return;
      const lines = data.split('\n').map((l) => `data: ${l}`);
      res.write(`event: ${event}\n${id !== undefined ? `id: ${id}\n` : ''}${lines.join('\n')}\n\n`);
    },
    close() {
      if (open) res.end();
      res.socket?.destroySoon?.();
    },
    closed,
  };
}

/**
 * The web server's gate, as for a remote shell. Every request:
 * - `Host` must name this server by IP address or `localhost`, with its port: a DNS name that
 *   resolves to us (DNS rebinding) is refused, whatever it resolves to, unless the person named it
 *   (`klaude web --allow-host`);
 * - gets strict headers: a Content-Security-Policy without inline script, no framing, no referrer,
 *   no caching of the API;
 * - of the API needs a signed-in page's cookie (HttpOnly, SameSite=Strict; its session on record,
 *   page-sessions.ts) or `Authorization: Bearer <token>`; a wrong token makes the next attempt wait
 *   (1 s, doubling to 10 s);
 * - that changes state, and every event stream, must come from this origin: `Origin` equal to
 *   `http://<Host>`, `Sec-Fetch-Site` same-origin when present; a request without `Origin` only
 *   with `Sec-Fetch-Site: same-origin` (a browser's own GET of an event stream) or the bearer
 *   token (a browser cannot add that header cross-origin without a preflight, never granted).
 */
import type { Middleware, NextHandler } from 'polka';
import { cookieOf, header, sendProblem, type Req, type Res } from './http-io.js';
import type { PageSessions } from './page-sessions.js';
import { sameSecret, type TokenKeeper } from './token.js';

export const COOKIE = 'klaude_web';

/**
 * The Content-Security-Policy. Script stays strict ('self' only, no inline script). Styles: the
 * terminal (xterm.js's DOM renderer) writes its own `<style>` elements at run time and supports
 * no nonce of its own, so the page's HTML carries a nonce made for that response
 * (`styleNonce`) and the page stamps it on the `<style>` elements it creates (page/style-nonce.ts):
 * `style-src-elem` admits only those. xterm also colours 24-bit cells through `style="color:…"`
 * attributes, which no nonce can cover: `style-src-attr 'unsafe-inline'` allows attributes only,
 * and they can load nothing (img-src and font-src stay 'self').
 */
export function csp(styleNonce?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    `style-src-elem 'self'${styleNonce ? ` 'nonce-${styleNonce}'` : ''}`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "connect-src 'self'",
    "manifest-src 'self'",
    "worker-src 'self'",
    "font-src 'self'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const CSP = csp();

/** Failed token attempts: each doubles the wait before the next is looked at. */
export class Throttle {
  private failures = 0;
  private until = 0;

  /** Milliseconds to wait before another attempt is heard (0: now). */
  wait(now = Date.now()): number {
    return Math.max(0, this.until - now);
  }

  fail(now = Date.now()): void {
    this.failures++;
    this.until = now + Math.min(10_000, 1000 * 2 ** Math.min(this.failures - 1, 10));
  }

  succeed(): void {
    this.failures = 0;
    this.until = 0;
  }
}

/**
 * `127.0.0.1:8080`, `[::1]:8080`, `localhost:8080`, `192.168.1.4:8080`: an address or localhost,
 * with our port; or a DNS name the person named (`--allow-host`, e.g. a VPN's name for this machine).
 */
export function hostAllowed(host: string | undefined, port: number, names: readonly string[] = []): boolean {
  const m = /^(\[[0-9a-f:.]+\]|[^:[\]]+):([0-9]+)$/i.exec(host ?? '');
  if (m === null || Number(m[2]) !== port) return false;
  const name = m[1]!.toLowerCase();
  return name.startsWith('[') || IPV4.test(name) || name === 'localhost' || names.includes(name);
}

const IPV4 = /^[0-9]{1,3}(?:\.[0-9]{1,3}){3}$/;

export interface GuardOptions {
  port: () => number;
  /** DNS names answered to besides addresses and localhost (lower case). */
  allowHosts?: readonly string[];
  tokens: TokenKeeper;
  /** Signed-in pages, by their cookie. */
  pages: PageSessions;
  throttle: Throttle;
}

export function securityHeaders(): Middleware {
  return (req, res, next) => {
    // The page's HTML replaces this one (with its style nonce).
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
    if (req.path.startsWith('/api/')) res.setHeader('Cache-Control', 'no-store');
    return next();
  };
}

export function hostCheck(o: GuardOptions): Middleware {
  return (req, res, next) => {
    if (!hostAllowed(header(req, 'host'), o.port(), o.allowHosts))
      return sendProblem(res, 421, 'E_WEB_HOST', 'this server answers only to its own address (Host refused)');
    return next();
  };
}

/** Same-origin, or the bearer token with no Origin at all (see above). */
export function sameOrigin(req: Req, bearer: boolean): boolean {
  const origin = header(req, 'origin');
  const site = header(req, 'sec-fetch-site');
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return false;
  // Chromium sends no Origin on a same-origin GET (an EventSource): its Sec-Fetch-Site says it.
  if (origin === undefined) return bearer || site === 'same-origin';
  return origin === `http://${header(req, 'host')}`;
}

/**
 * Which credential the request carries: 'cookie' (a signed-in page's, put on `req.pageSession`),
 * 'bearer', 'wrong' (a bad one), or null (none).
 */
export function credential(req: Req, o: GuardOptions): 'cookie' | 'bearer' | 'wrong' | null {
  const auth = header(req, 'authorization');
  if (auth !== undefined) {
    const m = /^Bearer (.+)$/.exec(auth);
    return m && sameSecret(m[1]!, o.tokens.current()) ? 'bearer' : 'wrong';
  }
  const cookie = cookieOf(req, COOKIE);
  if (cookie === undefined) return null;
  const page = o.pages.get(cookie);
  if (!page) return 'wrong';
  req.pageSession = page;
  return 'cookie';
}

/** The API's gate: authenticated, and same-origin for anything but a plain read. */
export function apiGuard(o: GuardOptions): Middleware {
  return (req: Req, res: Res, next: NextHandler) => {
    if (!req.path.startsWith('/api/') || req.path === '/api/login') return next();
    const wait = o.throttle.wait();
    const who = credential(req, o);
    if (who === 'wrong' && header(req, 'authorization') !== undefined) {
      if (wait > 0) return tooSoon(res, wait);
      o.throttle.fail();
    }
    if (who !== 'cookie' && who !== 'bearer') return sendProblem(res, 401, 'E_WEB_AUTH', 'not signed in');
    const reads = req.method === 'GET' || req.method === 'HEAD';
    const stream = /\/(events|log|terminal)$/.test(req.path);
    if ((!reads || stream) && !sameOrigin(req, who === 'bearer'))
      return sendProblem(res, 403, 'E_WEB_ORIGIN', 'refused: the request did not come from this page');
    return next();
  };
}

export function tooSoon(res: Res, waitMs: number): void {
  res.setHeader('Retry-After', String(Math.ceil(waitMs / 1000)));
  sendProblem(res, 429, 'E_WEB_SLOW_DOWN', 'too many wrong tokens: wait a little');
}

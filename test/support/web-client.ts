// Talking to `klaude web` in tests: start it on a free port, and raw HTTP requests (node:http, so
// a test can send any Host, Origin or cookie a browser or an attacker would).
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { mintLink } from '../../src/web/links.js';
import type { LinkOwner } from '../../src/ownership/web-sessions.js';
import { runKlaude } from './klaude-bin.js';

export interface WebServer {
  port: number;
  /** The server's own token (`<home>/web/token`): what `Authorization: Bearer` takes. */
  token: string;
  /** The one-time link token `klaude web` printed (in `url`). */
  link: string;
  origin: string;
  url: string;
  /** The KLAUDE_HOME, to mint more links. */
  home: string;
  /** The environment `klaude web` ran with: what links minted by the test carry. */
  env: Record<string, string>;
}

/** Who made a link the test mints itself (as a `klaude web` in the test's place would record). */
export const testOwner = (w: Pick<WebServer, 'env'>): LinkOwner => ({
  place: 'in the test',
  env: w.env,
  inv: null,
  madeAt: Date.now(),
});

export async function startWeb(env: Record<string, string>, cwd: string): Promise<WebServer> {
  const r = await runKlaude(['web', '--port', '0', '--json'], { env, cwd, timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`klaude web failed: ${r.stdout}${r.stderr}`);
  const o = JSON.parse(r.stdout) as { port: number; url: string };
  const link = /#token=(.+)$/.exec(o.url)?.[1] ?? '';
  const home = env.KLAUDE_HOME!;
  const token = readFileSync(join(home, 'web', 'token'), 'utf8').trim();
  return { port: o.port, token, link, origin: `http://127.0.0.1:${o.port}`, url: o.url, home, env };
}

/**
 * Stop the server and start it again on the same port, as a person restarting it would (pages
 * keep their cookie: the token is the home's, not the process's).
 */
export async function restartWeb(w: WebServer, env: Record<string, string>, cwd: string): Promise<WebServer> {
  const stop = await runKlaude(['web', '--stop', '--json'], { env, cwd, timeoutMs: 30_000 });
  if (!/"stopped":\s*true/.test(stop.stdout)) throw new Error(`klaude web --stop: ${stop.stdout}${stop.stderr}`);
  const r = await runKlaude(['web', '--port', String(w.port), '--json'], { env, cwd, timeoutMs: 30_000 });
  if (r.code !== 0) throw new Error(`klaude web failed: ${r.stdout}${r.stderr}`);
  const o = JSON.parse(r.stdout) as { port: number; url: string; started: boolean };
  if (!o.started || o.port !== w.port) throw new Error(`klaude web did not start anew on ${w.port}: ${r.stdout}`);
  return { ...w, link: /#token=(.+)$/.exec(o.url)?.[1] ?? '', url: o.url };
}

/** A fresh one-time sign-in URL, as a second `klaude web` would print. */
export function freshUrl(w: WebServer): string {
  return `${w.origin}/#token=${mintLink(w.home, testOwner(w))}`;
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function http(
  port: number,
  method: string,
  path: string,
  o: { headers?: Record<string, string>; body?: unknown; firstChunkOnly?: boolean } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const data = o.body === undefined ? undefined : JSON.stringify(o.body);
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        headers: {
          host: `127.0.0.1:${port}`,
          ...(data ? { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(data)) } : {}),
          ...o.headers,
        },
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          body += c;
          // An event stream never ends: its first chunk is enough.
          if (o.firstChunkOnly) {
            resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
            req.destroy();
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      },
    );
    req.on('error', (e) => (o.firstChunkOnly ? undefined : reject(e)));
    if (data) req.write(data);
    req.end();
  });
}

/** Sign in as the page does, with a fresh link; returns the Cookie header to send. */
export async function signIn(w: WebServer): Promise<string> {
  const token = mintLink(w.home, testOwner(w));
  const r = await http(w.port, 'POST', '/api/login', { headers: { origin: w.origin }, body: { token } });
  if (r.status !== 200) throw new Error(`sign-in failed: ${r.status} ${r.body}`);
  const set = r.headers['set-cookie'];
  const first = (Array.isArray(set) ? set[0] : set) ?? '';
  return first.split(';')[0]!;
}

/** An event stream held open: its first chunk, and its end (the server closing it). */
export function openStream(
  port: number,
  path: string,
  headers: Record<string, string>,
): { first: Promise<string>; ended: Promise<void> } {
  let first!: (s: string) => void;
  let ended!: () => void;
  const out = { first: new Promise<string>((r) => (first = r)), ended: new Promise<void>((r) => (ended = r)) };
  const req = request({ host: '127.0.0.1', port, path, headers: { host: `127.0.0.1:${port}`, ...headers } }, (res) => {
    res.setEncoding('utf8');
    res.once('data', (c: string) => first(c));
    res.on('close', () => ended());
    res.resume();
  });
  req.on('error', () => ended());
  req.end();
  return out;
}

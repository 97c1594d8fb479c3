/**
 * WebSocket upgrades (the terminal), gated exactly like any other request: the upgrade request is
 * run through the app (Host check, cookie, Origin: guard.ts) with `wsAccept` in its env; only a
 * route that calls it and answers 204 gets the socket upgraded, by `ws` (loaded on the first
 * upgrade: an idle server never pays for it). Anything else is written back as the HTTP answer
 * it is, and the socket closed.
 */
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';

export type WebSocketLike = WebSocket;

export interface UpgradeEnv {
  /** Set only on an upgrade request: the route hands over what to do with the socket. */
  wsAccept?: (open: (ws: WebSocket) => void) => void;
  /** The peer's address, to name a web page holding a session. */
  remote?: string;
}

type Fetch = (req: Request, env: UpgradeEnv) => Response | Promise<Response>;

/** A message from the page is a few keys or a resize: anything bigger is not the page's. */
const MAX_MESSAGE = 256 * 1024;

export function handleUpgrades(server: Server, fetch: Fetch): void {
  let wss: Promise<WebSocketServer> | undefined;
  const serverOf = (): Promise<WebSocketServer> =>
    (wss ??= import('ws').then(
      ({ WebSocketServer: S }) => new S({ noServer: true, maxPayload: MAX_MESSAGE, perMessageDeflate: false }),
    ));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    // The header timer (web-server-main.ts) is cleared by 'request', which an upgrade never emits.
    (socket as Duplex & { setTimeout?: (ms: number) => void }).setTimeout?.(0);
    void upgrade(req, socket, head, fetch, serverOf).catch(() => socket.destroy());
  });
}

function requestOf(req: IncomingMessage): Request {
  const headers = new Headers();
  for (const [k, v] of Object.entries(req.headers)) {
    if (typeof v === 'string') headers.set(k, v);
    else if (Array.isArray(v)) for (const x of v) headers.append(k, x);
  }
  // The URL's authority is fixed: the Host header (checked by the app) is what counts.
  return new Request(new URL(req.url ?? '/', 'http://127.0.0.1'), { method: req.method ?? 'GET', headers });
}

async function upgrade(
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  fetch: Fetch,
  serverOf: () => Promise<WebSocketServer>,
): Promise<void> {
  let open: ((ws: WebSocket) => void) | null = null;
  const res = await fetch(requestOf(req), {
    wsAccept: (fn) => (open = fn),
    ...(req.socket.remoteAddress ? { remote: req.socket.remoteAddress } : {}),
  });
  const accept = open as ((ws: WebSocket) => void) | null;
  if (res.status !== 204 || !accept) {
    const body = Buffer.from(await res.text());
    const head = [`HTTP/1.1 ${res.status} ${res.statusText || 'Refused'}`, 'Connection: close'];
    res.headers.forEach((v, k) => void (k !== 'content-length' && head.push(`${k}: ${v}`)));
    head.push(`Content-Length: ${body.length}`);
    socket.end(Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`), body]));
    return;
  }
  const wss = await serverOf();
  wss.handleUpgrade(req, socket, head, (ws) => accept(ws));
}

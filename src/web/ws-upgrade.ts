/**
 * WebSocket upgrades (the terminal), gated exactly like any other request: the upgrade request is
 * run through the app (Host check, cookie, Origin: guard.ts) with `wsAccept` on it; only a route
 * that calls it gets the socket upgraded, by `ws` (loaded on the first upgrade: an idle server
 * never pays for it). Anything else is written back as the HTTP answer it is, and the socket
 * closed.
 */
import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { WebSocket, WebSocketServer } from 'ws';

export type WebSocketLike = WebSocket;

/** What the app's terminal route finds on an upgrade request (and only there). */
export interface UpgradeRequest {
  /** The route hands over what to do with the socket; not calling it refuses. */
  wsAccept?: (open: (ws: WebSocket) => void) => void;
}

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** A message from the page is a few keys or a resize: anything bigger is not the page's. */
const MAX_MESSAGE = 256 * 1024;

export function handleUpgrades(server: Server, handler: Handler): void {
  let wss: Promise<WebSocketServer> | undefined;
  const serverOf = (): Promise<WebSocketServer> =>
    (wss ??= import('ws').then(
      ({ WebSocketServer: S }) => new S({ noServer: true, maxPayload: MAX_MESSAGE, perMessageDeflate: false }),
    ));
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    // The header timer (web-server-main.ts) is cleared by 'request', which an upgrade never emits.
    (socket as Duplex & { setTimeout?: (ms: number) => void }).setTimeout?.(0);
    void upgrade(req, socket as Socket, head, handler, serverOf).catch(() => socket.destroy());
  });
}

/**
 * Runs the upgrade request through the app with a real response bound to its socket: a refusal is
 * written as the HTTP answer it is (then the socket closes); an accepted one has written nothing,
 * and the socket goes to `ws`.
 */
async function upgrade(
  req: IncomingMessage,
  socket: Socket,
  head: Buffer,
  handler: Handler,
  serverOf: () => Promise<WebSocketServer>,
): Promise<void> {
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  const accepted = await new Promise<((ws: WebSocket) => void) | null>((resolve) => {
    res.once('finish', () => resolve(null));
    (req as IncomingMessage & UpgradeRequest).wsAccept = (open) => resolve(open);
    handler(req, res);
  });
  if (!accepted) {
    socket.end();
    return;
  }
  res.detachSocket(socket);
  const wss = await serverOf();
  wss.handleUpgrade(req, socket, head, (ws) => accepted(ws));
}

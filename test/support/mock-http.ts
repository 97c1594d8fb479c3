// What the model-API stand-ins (Anthropic, OpenAI Responses, Gemini) share: a log of the
// requests they received that tests can wait on, and a loopback HTTP server that can hold a
// response open forever (a "hanging" model) and close everything at the end.
import type { Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RequestLog<R> {
  requests: R[];
  record(r: R): void;
  /** Resolves with the first request (already recorded or future) matching pred. */
  waitForRequest(pred: (r: R) => boolean, timeoutMs?: number): Promise<R>;
}

export function requestLog<R>(name: string, describe: (r: R) => string, debug: boolean): RequestLog<R> {
  const requests: R[] = [];
  const waiters = new Set<{ pred: (r: R) => boolean; resolve: (r: R) => void }>();
  return {
    requests,
    record(r) {
      requests.push(r);
      if (debug) process.stderr.write(`[${name}] ${describe(r)}\n`);
      for (const w of [...waiters]) {
        if (w.pred(r)) {
          waiters.delete(w);
          w.resolve(r);
        }
      }
    },
    waitForRequest(pred, timeoutMs = 30_000) {
      const found = requests.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise<R>((resolve, reject) => {
        const w = {
          pred,
          resolve: (r: R) => {
            clearTimeout(timer);
            resolve(r);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(
            new Error(
              `${name}: no matching request within ${timeoutMs} ms; seen:\n${requests.map(describe).join('\n') || '(none)'}`,
            ),
          );
        }, timeoutMs);
        waiters.add(w);
      });
    },
  };
}

export class Loopback {
  private readonly sockets = new Set<Socket>();
  private readonly held = new Set<ServerResponse>();
  private closed = false;

  /** Never answer this response (until close). */
  hold(res: ServerResponse): void {
    this.held.add(res);
    res.on('close', () => this.held.delete(res));
  }

  /** `host`: where to listen (default loopback; a zone test gives its veth address, test/support/zone-host.ts). */
  async listen(server: Server, host = '127.0.0.1'): Promise<{ url: string; port: number }> {
    server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    const port = (server.address() as AddressInfo).port;
    return { url: `http://${host}:${port}`, port };
  }

  async close(server: Server): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const r of this.held) r.destroy();
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** A handler that threw: a 500 with the stand-in's error body, or drop a stream already started. */
export function failRequest(res: ServerResponse, body: unknown): void {
  if (!res.headersSent) sendJson(res, 500, body);
  else res.destroy();
}

/**
 * Asking a zone's link (src/zones/link.ts) from any klaude process: one request over its socket,
 * starting the link first when none listens (`node <klaude> __zone-link <zone>`, detached, one
 * ready line: the PTY server's way, pty/launch.ts). The link then does the ssh work; a caller never
 * runs ssh itself for an agent of a zone.
 */
import { randomBytes } from 'node:crypto';
import { logFilePath } from '../config/paths.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { fromSerialized, KlaudeError } from '../lib/errors.js';
import { startDetachedServer } from '../lib/detached-server.js';
import { lineStream, SocketClient } from '../lib/socket-client.js';
import { zoneLinkSocket } from './paths.js';
import { LINK_RUNNING, type LinkReady, type LinkReply, type LinkRequest } from './link-protocol.js';
import { serviceEnv } from '../lib/service-env.js';

export const ZONE_LINK_COMMAND = '__zone-link';

/** What reaching a zone's link takes. */
export interface ZoneAccess {
  home: string;
  env: NodeJS.ProcessEnv;
  inv: KlaudeInvocation;
  zone: string;
}

const NO_LINK = 'no zone link';

const isGone = (err: NodeJS.ErrnoException): boolean =>
  err.code === 'ENOENT' || err.code === 'ECONNREFUSED' || err.code === 'ECONNRESET' || err.code === 'EPIPE';

function request(socketPath: string, req: LinkRequest, timeoutMs: number): Promise<LinkReply> {
  const client = new SocketClient<string, LinkReply>({
    socketPath,
    timeoutMs,
    decoder: lineStream(),
    errors: {
      timeout: () =>
        new KlaudeError('E_TIMEOUT', `the zone link did not answer ${req.op} in time`, {
          hint: 'klaude zone list shows the link; klaude zone check <zone> tries the connection',
        }),
      socket: (err) => (isGone(err) ? new Error(NO_LINK) : err),
      closed: () => new Error(NO_LINK),
    },
    onConnect: (c) => c.write(`${JSON.stringify(req)}\n`),
    onMessage: (line, c) => {
      try {
        c.settle(JSON.parse(line) as LinkReply);
      } catch {
        c.fail(new KlaudeError('E_PROTOCOL', 'the zone link said something unexpected'));
      }
      c.close();
    },
  });
  return client.answer;
}

const isNoLink = (e: unknown): boolean => e instanceof Error && e.message === NO_LINK;

/** A zone's refusal, saying where "here" and "there" are (`in zone build: …`) unless it does already. */
export function inZone(e: unknown, zone: string): unknown {
  if (!(e instanceof KlaudeError) || e.message.includes(`zone ${zone}`)) return e;
  return new KlaudeError(e.code, `in zone ${zone}: ${e.message}`, {
    hint: e.hint,
    details: e.details,
    exitCode: e.exitCode,
    cause: e,
  });
}

/** Start the zone's link (a second starter's link finds the socket taken and says so: fine). */
export async function startLink(o: ZoneAccess, timeoutMs = 15_000): Promise<void> {
  const ready = (await startDetachedServer({
    node: o.inv.node,
    args: [o.inv.cli, ZONE_LINK_COMMAND, o.zone],
    env: serviceEnv(o.env, o.home),
    logFile: logFilePath(o.home),
    name: `the link to zone ${o.zone}`,
    timeoutMs,
  })) as LinkReady;
  if (!ready.ok && ready.error.code !== LINK_RUNNING) throw fromSerialized(ready.error);
}

/** One request to the zone's link, started when none listens; its error is thrown as the link's KlaudeError. */
export async function askZone<R>(o: ZoneAccess, req: LinkRequest, timeoutMs = 30_000): Promise<R> {
  const socket = zoneLinkSocket(o.home, o.zone, o.env);
  // A message asked again of a new link (the first died after taking it) must stay one message.
  if (req.op === 'message' && !req.key) req = { ...req, key: randomBytes(12).toString('base64url') };
  for (let attempt = 0; ; attempt++) {
    try {
      const reply = await request(socket, req, timeoutMs);
      if (!reply.ok) throw fromSerialized(reply.error);
      return reply.result as R;
    } catch (e) {
      if (!isNoLink(e)) throw e;
      if (attempt >= 2)
        throw new KlaudeError('E_IO', `could not reach the link to zone ${o.zone}`, {
          hint: `see ${logFilePath(o.home)}`,
        });
    }
    await startLink(o);
  }
}

/**
 * Tell a zone's link that someone is looking (any klaude command): a link waiting out its backoff
 * tries the connection now; with no link, one is started (not waited for). Never throws.
 */
export async function kickZone(o: ZoneAccess): Promise<void> {
  try {
    await request(zoneLinkSocket(o.home, o.zone, o.env), { op: 'kick' }, 2000);
  } catch (e) {
    if (!isNoLink(e)) return;
    try {
      await startLink(o, 5000);
    } catch {
      /* the next command tries again; `klaude zone check` says why */
    }
  }
}

/** A running link's answer to `req`, or null when no link of the zone runs (none is started). */
export async function askRunningLink<R>(
  o: Omit<ZoneAccess, 'inv'>,
  req: LinkRequest,
  timeoutMs = 5000,
): Promise<R | null> {
  try {
    const reply = await request(zoneLinkSocket(o.home, o.zone, o.env), req, timeoutMs);
    if (!reply.ok) throw fromSerialized(reply.error);
    return reply.result as R;
  } catch (e) {
    if (isNoLink(e)) return null;
    throw e;
  }
}

/**
 * Finding or starting this home's web server (`klaude web`): the record names a live one; else
 * `node <klaude> __web` starts detached (own session, cwd '/'), and its one ready line says where
 * it listens (pty/launch.ts does the same for the PTY server). Its environment is the caller's
 * without what marks a Claude or a klaude session (the server starts agents as the person would
 * from a plain shell); the token is never in it.
 */
import { logFilePath } from '../config/paths.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { KlaudeError } from '../lib/errors.js';
import { startDetachedServer } from '../lib/detached-server.js';
import { liveWebRecord, type WebRecord } from '../ownership/web-record.js';
import { serviceEnv } from '../lib/service-env.js';

export const WEB_SERVER_COMMAND = '__web';

/**
 * V8 flags for the server, as for the PTY server (pty/launch.ts): it lives long and mostly moves
 * small JSON, so 1 MiB semi-spaces instead of up to 16, and no background V8 threads (each grew a
 * malloc arena of its own).
 */
export const WEB_NODE_FLAGS = ['--max-semi-space-size=1', '--single-threaded'];

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';

/** A DNS name `--allow-host` accepts: labels of letters, digits and hyphens; not an address, no port. */
export function validHostName(name: string): boolean {
  return name.length <= 253 && new RegExp(`^${LABEL}(?:\\.${LABEL})*$`, 'i').test(name) && !/^[0-9.]+$/.test(name);
}

export interface WebStart {
  home: string;
  inv: KlaudeInvocation;
  env: NodeJS.ProcessEnv;
  host: string;
  port: number;
  /** DNS names it answers to besides addresses and localhost (validated by the command). */
  allowHosts?: string[];
  timeoutMs?: number;
}

/** The running server, or a new one; `started` says which. */
export async function ensureWebServer(o: WebStart): Promise<{ record: WebRecord; started: boolean }> {
  const live = liveWebRecord(o.home);
  if (live && live.port > 0) return { record: live, started: false };
  const r = await spawnServer(o);
  const record = liveWebRecord(o.home);
  if (record && record.port > 0) return { record, started: r.started };
  throw new KlaudeError('E_IO', 'the web server started but left no record', { hint: `see ${logFilePath(o.home)}` });
}

interface ReadyLine {
  ok: boolean;
  pid?: number;
  port?: number;
  error?: { code: string; message: string; port?: number };
}

async function spawnServer(o: WebStart): Promise<{ started: boolean }> {
  const r = (await startDetachedServer({
    node: o.inv.node,
    args: [
      ...WEB_NODE_FLAGS,
      o.inv.cli,
      WEB_SERVER_COMMAND,
      '--host',
      o.host,
      '--port',
      String(o.port),
      ...(o.allowHosts?.length ? ['--allow-host', o.allowHosts.join(',')] : []),
    ],
    env: serviceEnv(o.env, o.home),
    logFile: logFilePath(o.home),
    name: 'the web server',
    timeoutMs: o.timeoutMs ?? 15_000,
  })) as ReadyLine;
  if (r.ok) return { started: true };
  if (r.error?.code === 'E_WEB_RUNNING') return { started: false };
  const taken = r.error?.code === 'EADDRINUSE';
  throw new KlaudeError(
    'E_IO',
    `the web server could not start: ${taken ? `port ${o.port} is taken` : (r.error?.message ?? 'unknown error')}`,
    {
      hint: taken ? 'choose another with --port' : `see ${logFilePath(o.home)}`,
    },
  );
}

/**
 * `klaude web [--host h] [--port p] [--stop | --status | --rotate-token]`: find or start this
 * home's web server (src/web/) and print its address with the sign-in token.
 */
import { currentInvocation } from '../claude/shim.js';
import { ensurePrivateDir, klaudeHome } from '../config/paths.js';
import { openDb } from '../db/client.js';
import { usageError } from '../lib/errors.js';
import { safeJson } from '../lib/escapes.js';
import { terminateProcess } from '../lib/process.js';
import { liveWebRecord, type WebRecord } from '../ownership/web-record.js';
import { ensureWebServer } from '../web/web-launch.js';
import { readOrCreateToken, rotateToken } from '../web/token.js';
import type { CommandContext } from './types.js';

export const DEFAULT_WEB_PORT = 7878;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

function baseUrl(r: WebRecord): string {
  const host = r.host === '0.0.0.0' || r.host === '::' ? '127.0.0.1' : r.host.includes(':') ? `[${r.host}]` : r.host;
  return `http://${host}:${r.port}/`;
}

export async function run(ctx: CommandContext): Promise<number> {
  const home = ensurePrivateDir(klaudeHome(ctx.env));
  const f = ctx.flags;
  const modes = ['stop', 'status', 'rotateToken'].filter((k) => f[k] === true);
  if (modes.length > 1) throw usageError('--stop, --status and --rotate-token go one at a time');
  const json = f.json === true;
  const out = (o: object, text: string): void => void ctx.stdout.write(json ? `${safeJson(o)}\n` : text);
  // Inside Claude (its Bash tool) the token is not printed: it signs in as the person.
  const insideClaude = ctx.env.CLAUDECODE === '1';
  const withToken = (r: WebRecord, token: string): string =>
    insideClaude ? baseUrl(r) : `${baseUrl(r)}#token=${token}`;

  if (f.status === true) {
    const r = liveWebRecord(home);
    if (!r) return (out({ running: false }, 'klaude web: not running\n'), 1);
    out(
      { running: true, pid: r.pid, host: r.host, port: r.port, url: baseUrl(r) },
      `klaude web: running at ${baseUrl(r)} (pid ${r.pid})\n`,
    );
    return 0;
  }
  if (f.stop === true) {
    const r = liveWebRecord(home);
    if (!r) return (out({ stopped: false }, 'klaude web: not running\n'), 0);
    await terminateProcess({ pid: r.pid, pidStart: r.pidStart }, 3000);
    out({ stopped: true, pid: r.pid }, `klaude web: stopped (pid ${r.pid})\n`);
    return 0;
  }
  if (f.rotateToken === true) {
    const token = rotateToken(home);
    const r = liveWebRecord(home);
    const note = 'every signed-in page is signed out';
    if (!r) return (out({ rotated: true }, `klaude web: new token written (${note}; not running)\n`), 0);
    out({ rotated: true, url: withToken(r, token) }, `klaude web: new token (${note})\n${withToken(r, token)}\n`);
    return 0;
  }
  const host = typeof f.host === 'string' ? f.host : '127.0.0.1';
  const port = typeof f.port === 'number' ? f.port : DEFAULT_WEB_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError('--port needs a port number (0: any free one)');
  const token = readOrCreateToken(home);
  // The server opens the DB without drizzle (until the first action): have it created and migrated.
  openDb(home).close();
  const { record, started } = await ensureWebServer({ home, inv: currentInvocation(), env: ctx.env, host, port });
  if (started && !LOOPBACK.has(record.host))
    ctx.stderr.write(
      `klaude web: warning: listening on ${record.host} lets anyone who can reach it try the token; whoever has it controls your agents like a shell. Prefer an SSH tunnel or a VPN (see the README).\n`,
    );
  const moved = !started && (record.host !== host || (typeof f.port === 'number' && record.port !== port));
  const lines = [
    started ? 'klaude web: started' : 'klaude web: already running',
    moved ? ` (on ${record.host}:${record.port}; \`klaude web --stop\` first to move it)` : '',
    `\n${withToken(record, token)}\n`,
    insideClaude ? '(the sign-in token is not shown inside Claude: run `klaude web` in your own terminal)\n' : '',
  ];
  out(
    { started, pid: record.pid, host: record.host, port: record.port, url: withToken(record, token) },
    lines.join(''),
  );
  return 0;
}

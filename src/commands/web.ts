/**
 * `klaude web [--host h] [--port p] [--stop | --status | --rotate-token]`: find or start this
 * home's web server (src/web/) and print its address with a one-time sign-in link.
 */
import { currentInvocation } from '../claude/shim.js';
import { ensurePrivateDir, klaudeHome } from '../config/paths.js';
import { openDb } from '../db/client.js';
import { usageError } from '../lib/errors.js';
import { safeJson } from '../lib/escapes.js';
import { terminateProcess } from '../lib/process.js';
import { liveWebRecord, type WebRecord } from '../ownership/web-record.js';
import { ensureWebServer, validHostName } from '../web/web-launch.js';
import { readOrCreateToken, rotateToken } from '../web/token.js';
import { dropLinks, mintLink } from '../web/links.js';
import type { CommandContext } from './types.js';

export const DEFAULT_WEB_PORT = 7878;

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '::1']);

/** Where to open it: the first name it was allowed to answer to, else its address (loopback for "any"). */
function baseUrl(r: WebRecord): string {
  const named = r.allowHosts?.[0];
  const host =
    named ?? (r.host === '0.0.0.0' || r.host === '::' ? '127.0.0.1' : r.host.includes(':') ? `[${r.host}]` : r.host);
  return `http://${host}:${r.port}/`;
}

/** `--allow-host a,b`: DNS names, lower case; anything else is a usage error (nothing started). */
function allowedHosts(v: unknown): string[] {
  if (typeof v !== 'string') return [];
  const names = v
    .split(',')
    .map((n) => n.trim().toLowerCase())
    .filter(Boolean);
  const bad = names.find((n) => !validHostName(n));
  if (bad !== undefined || names.length === 0)
    throw usageError(
      `--allow-host needs DNS names, comma-separated (not '${bad ?? v}')`,
      'e.g. --allow-host mybox.tail1234.ts.net; addresses and localhost are always answered',
    );
  return names;
}

export async function run(ctx: CommandContext): Promise<number> {
  const home = ensurePrivateDir(klaudeHome(ctx.env));
  const f = ctx.flags;
  const modes = ['stop', 'status', 'rotateToken'].filter((k) => f[k] === true);
  if (modes.length > 1) throw usageError('--stop, --status and --rotate-token go one at a time');
  const json = f.json === true;
  const out = (o: object, text: string): void => void ctx.stdout.write(json ? `${safeJson(o)}\n` : text);
  // Inside Claude (its Bash tool) no link is made: it would sign in as the person.
  const insideClaude = ctx.env.CLAUDECODE === '1';
  // Each printed link is good for one sign-in (web/links.ts); the server's own token never leaves the file.
  const withToken = (r: WebRecord): string => (insideClaude ? baseUrl(r) : `${baseUrl(r)}#token=${mintLink(home)}`);

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
    rotateToken(home);
    dropLinks(home);
    const r = liveWebRecord(home);
    const note = 'every signed-in page is signed out, unused links no longer work';
    if (!r) return (out({ rotated: true }, `klaude web: new token written (${note}; not running)\n`), 0);
    const url = withToken(r);
    out({ rotated: true, url }, `klaude web: new token (${note})\n${url}\n`);
    return 0;
  }
  const host = typeof f.host === 'string' ? f.host : '127.0.0.1';
  const allowHosts = allowedHosts(f.allowHost);
  const port = typeof f.port === 'number' ? f.port : DEFAULT_WEB_PORT;
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw usageError('--port needs a port number (0: any free one)');
  readOrCreateToken(home);
  // The server opens the DB without drizzle (until the first action): have it created and migrated.
  openDb(home).close();
  const { record, started } = await ensureWebServer({
    home,
    inv: currentInvocation(),
    env: ctx.env,
    host,
    port,
    allowHosts,
  });
  if (started && !LOOPBACK.has(record.host))
    ctx.stderr.write(
      `klaude web: warning: listening on ${record.host} lets anyone who can reach it try the token; whoever has it controls your agents like a shell. Prefer an SSH tunnel or a VPN (see the README).\n`,
    );
  const moved =
    !started &&
    (record.host !== host ||
      (typeof f.port === 'number' && record.port !== port) ||
      (f.allowHost !== undefined && (record.allowHosts ?? []).join(',') !== allowHosts.join(',')));
  const url = withToken(record);
  const lines = [
    started ? 'klaude web: started' : 'klaude web: already running',
    moved
      ? ` (on ${record.host}:${record.port}${record.allowHosts ? `, answering to ${record.allowHosts.join(', ')}` : ''}; \`klaude web --stop\` first to change it)`
      : '',
    `\n${url}\n`,
    insideClaude
      ? '(no sign-in link inside Claude: run `klaude web` in your own terminal)\n'
      : '(the link signs in one browser, once; `klaude web` again prints a new one)\n',
  ];
  out({ started, pid: record.pid, host: record.host, port: record.port, url }, lines.join(''));
  return 0;
}

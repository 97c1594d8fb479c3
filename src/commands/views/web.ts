/**
 * `klaude web [--host h] [--port p] [--stop | --status | --rotate-token]`: find or start this
 * home's web server (src/web/) and print its address with a one-time sign-in link.
 */
import { currentInvocation } from '../../claude/shim.js';
import { ensurePrivateDir, klaudeHome } from '../../config/paths.js';
import { openDb } from '../../db/client.js';
import { KlaudeError, usageError } from '../../lib/errors.js';
import { safeJson } from '../../lib/escapes.js';
import { terminateProcess } from '../../lib/process.js';
import { agentVerdict, type AgentVerdict } from '../../ownership/answerer.js';
import { liveWebRecord, type WebRecord } from '../../ownership/web-record.js';
import { dropPageSessions } from '../../ownership/web-sessions.js';
import { ensureWebServer, validHostName } from '../../web/web-launch.js';
import { serviceEnv } from '../../lib/service-env.js';
import { readOrCreateToken, rotateToken } from '../../web/token.js';
import { dropLinks, mintLink } from '../../web/links.js';
import type { CommandContext } from '../cli/types.js';

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

/**
 * Where this `klaude web` runs: a sign-in link signs a page in as the person, so none is made
 * inside an agent — judged by what klaude launched and the process tree (ownership/answerer.ts),
 * whatever the environment says (`env -u CLAUDECODE` changes nothing).
 */
function whereAmI(home: string, env: NodeJS.ProcessEnv): AgentVerdict {
  if (env.CLAUDECODE === '1') return { inside: true, by: 'Claude', why: "it runs in Claude's Bash tool" };
  // The DB is created and migrated here too: the server opens it without drizzle (until the first action).
  const db = openDb(home);
  try {
    return agentVerdict(db, process.pid);
  } finally {
    db.close();
  }
}

type Out = (o: object, text: string) => void;

function status(home: string, out: Out): number {
  const r = liveWebRecord(home);
  if (!r) return (out({ running: false }, 'klaude web: not running\n'), 1);
  out(
    { running: true, pid: r.pid, host: r.host, port: r.port, url: baseUrl(r) },
    `klaude web: running at ${baseUrl(r)} (pid ${r.pid})\n`,
  );
  return 0;
}

async function stop(home: string, out: Out): Promise<number> {
  const r = liveWebRecord(home);
  if (!r) return (out({ stopped: false }, 'klaude web: not running\n'), 0);
  await terminateProcess({ pid: r.pid, pidStart: r.pidStart }, 3000);
  out({ stopped: true, pid: r.pid }, `klaude web: stopped (pid ${r.pid})\n`);
  return 0;
}

export async function run(ctx: CommandContext): Promise<number> {
  const home = ensurePrivateDir(klaudeHome(ctx.env));
  const f = ctx.flags;
  const modes = ['stop', 'status', 'rotateToken'].filter((k) => f[k] === true);
  if (modes.length > 1) throw usageError('--stop, --status and --rotate-token go one at a time');
  const json = f.json === true;
  const out: Out = (o, text) => void ctx.stdout.write(json ? `${safeJson(o)}\n` : text);
  const here = f.status === true || f.stop === true ? null : whereAmI(home, ctx.env);
  // Each printed link is good for one sign-in (web/links.ts) and carries who made it, with this
  // environment (the page's agents start with it); the server's own token never leaves the file.
  const withToken = (r: WebRecord): string =>
    !here || here.inside
      ? baseUrl(r)
      : `${baseUrl(r)}#token=${mintLink(home, {
          place: here.place,
          env: serviceEnv(ctx.env, home) as Record<string, string>,
          inv: currentInvocation(),
          madeAt: Date.now(),
        })}`;

  if (f.status === true) return status(home, out);
  if (f.stop === true) return stop(home, out);
  if (f.rotateToken === true) {
    if (here?.inside)
      throw new KlaudeError('E_PERSON_ONLY', `klaude web --rotate-token is the person's: ${here.why} (${here.by})`, {
        hint: 'run it in a terminal of your own',
      });
    rotateToken(home);
    dropLinks(home);
    dropPageSessions(home);
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
    here?.inside
      ? `(no sign-in link: ${here.why} (${here.by}); run \`klaude web\` in a terminal of your own)\n`
      : '(the link signs in one browser, once; `klaude web` again prints a new one)\n',
  ];
  const noLink = here?.inside ? { noLink: `${here.why} (${here.by})` } : {};
  out({ started, pid: record.pid, host: record.host, port: record.port, url, ...noLink }, lines.join(''));
  return 0;
}

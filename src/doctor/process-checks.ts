/**
 * klaude's background processes: the PTY server (does it answer on its socket?), recorded
 * processes that outlived their owner (ownerlessRows, the rule reconcile ends them by, judged by
 * pid and start time), and watchdog `sh`s whose owner is gone. Read-only: doctor signals nothing.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { klaudeHome, runDir } from '../config/paths.js';
import { shortId } from '../core/ids.js';
import { openDb } from '../db/client.js';
import { ownerlessRows } from '../db/repos/reconcile.js';
import { isKlaudeError } from '../lib/errors.js';
import { countsAsAlive, identities } from '../lib/process.js';
import { isNoServer, PTY_SERVER_PROTOCOL, serverRequest, type ListReply } from '../ptyd/protocol.js';
import { failed, passed, warned, type CheckResult } from './check.js';

const PTY = 'pty server';

/** Every `ptyd-<protocol>.sock` in the run directory, asked for its sessions. */
export async function checkPtyServer(home: string, env: NodeJS.ProcessEnv): Promise<CheckResult> {
  const dir = runDir(home, env);
  let socks: string[];
  try {
    socks = readdirSync(dir).filter((n) => /^ptyd-\d+\.sock$/.test(n));
  } catch {
    socks = [];
  }
  if (socks.length === 0) return passed(PTY, 'not running (it starts when `klaude talk` or the dashboard needs it)');
  const results = await Promise.all(socks.map((n) => askServer(path.join(dir, n))));
  return results.find((r) => r.level === 'error') ?? results.find((r) => r.level === 'warn') ?? results[0]!;
}

async function askServer(sock: string): Promise<CheckResult> {
  const protocol = Number(/ptyd-(\d+)\.sock$/.exec(sock)![1]);
  try {
    const r = await serverRequest<ListReply>(sock, { op: 'list' }, 3000);
    if (!r.ok) return failed(PTY, `${sock}: ${r.error.message}`, 'stop it (its sessions resume with klaude talk <id>)');
    const what = `pid ${r.pid}, protocol ${protocol}, ${r.sessions.length} session(s), answering on ${sock}`;
    if (protocol === PTY_SERVER_PROTOCOL) return passed(PTY, what);
    return warned(PTY, `an older klaude's server: ${what}`, 'none: it exits after its last session');
  } catch (e) {
    if (isNoServer(e))
      return warned(PTY, `${sock} is left from a server that is gone`, 'none: the next server replaces it');
    if (isKlaudeError(e) && e.code === 'E_INSECURE_RUNDIR') return failed(PTY, e.message, e.hint ?? 'remove it');
    return failed(
      PTY,
      `the server on ${sock} does not answer (${(e as Error).message})`,
      'end it: kill $(pgrep -f "cli.js __ptyd"); its sessions resume with klaude talk <id>',
    );
  }
}

/** Recorded processes that must not outlive their owner, still running (reconcile would end them). */
export function checkLeftovers(home: string, dbCurrent: boolean): CheckResult {
  const name = 'leftover processes';
  if (!dbCurrent) return passed(name, 'not checked: the database is missing or not current');
  const db = openDb(home);
  let rows;
  try {
    rows = ownerlessRows(db);
  } finally {
    db.close();
  }
  const ids = identities(rows);
  const live = rows.filter((_, i) => countsAsAlive(ids[i]!));
  if (live.length === 0) return passed(name, 'none: every recorded process has its owner');
  const list = live.map((p) => `pid ${p.pid} (${p.kind} of session ${shortId(p.klaudeSessionId)})`).join(', ');
  const pids = live.map((p) => p.pid).join(' ');
  return failed(name, `running without their owner: ${list}`, `klaude sessions ends them (or: kill ${pids})`);
}

interface Proc {
  pid: number;
  ppid: number;
  uid: number;
  argv: string[];
}

function readProc(pid: number, root: string): Proc | null {
  try {
    const argv = readFileSync(`${root}/${pid}/cmdline`, 'utf8').split('\0');
    const stat = readFileSync(`${root}/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return { pid, ppid, uid: statSync(`${root}/${pid}`).uid, argv };
  } catch {
    return null;
  }
}

/** The klaude home a process works for, from its environment (as klaude itself reads it). */
function homeOf(pid: number, root: string): string | null {
  try {
    const env: NodeJS.ProcessEnv = {};
    for (const kv of readFileSync(`${root}/${pid}/environ`, 'utf8').split('\0')) {
      const i = kv.indexOf('=');
      if (i > 0) env[kv.slice(0, i)] = kv.slice(i + 1);
    }
    return klaudeHome(env);
  } catch {
    return null;
  }
}

/** A klaude process: node running klaude's entry (the owner of every watchdog). */
const isKlaudeNode = (p: Proc | null): boolean =>
  p !== null && (/^node/.test(path.basename(p.argv[0] ?? '')) || p.argv.some((a) => /(cli\.js|hook\.cjs)$/.test(a)));

/**
 * Watchdog `sh`s (ownership/watchdog.ts, watchdog-pool.ts: `sh -c … klaude-watchdog`) of this user
 * and of this home (the KLAUDE_HOME its environment names) whose owner is gone: one that read its owner's end it ends its child and exits within its grace,
 * so one adopted by another parent and still there is stuck (something else holds its pipe open).
 * Linux only (/proc).
 */
export function checkWatchdogs(home: string, uid: number | null, procRoot = '/proc'): CheckResult {
  const name = 'watchdogs';
  let pids: number[];
  try {
    pids = readdirSync(procRoot)
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return passed(name, 'not checked: no /proc here');
  }
  const stray: Proc[] = [];
  for (const pid of pids) {
    const p = readProc(pid, procRoot);
    if (!p || p.argv[1] !== '-c' || p.argv[3] !== 'klaude-watchdog' || (uid !== null && p.uid !== uid)) continue;
    if (homeOf(pid, procRoot) !== home) continue;
    if (!isKlaudeNode(readProc(p.ppid, procRoot))) stray.push(p);
  }
  if (stray.length === 0) return passed(name, 'none without an owner');
  const list = stray.map((p) => `pid ${p.pid}${p.argv[4] ? ` (guarding pid ${p.argv[4]})` : ''}`).join(', ');
  return warned(
    name,
    `${stray.length} watchdog(s) whose owner is gone: ${list}`,
    `kill ${stray.map((p) => p.pid).join(' ')}`,
  );
}

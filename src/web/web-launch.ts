/**
 * Finding or starting this home's web server (`klaude web`): the record names a live one; else
 * `node <klaude> __web` starts detached (own session, cwd '/'), and its one ready line says where
 * it listens (pty/launch.ts does the same for the PTY server). Its environment is the caller's
 * without what marks a Claude or a klaude session (the server starts agents as the person would
 * from a plain shell); the token is never in it.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { logFilePath } from '../config/paths.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { KlaudeError } from '../lib/errors.js';
import { liveWebRecord, type WebRecord } from '../ownership/web-record.js';

export const WEB_SERVER_COMMAND = '__web';

/**
 * V8 flags for the server, as for the PTY server (pty/launch.ts): it lives long and mostly moves
 * small JSON, so 1 MiB semi-spaces instead of up to 16, and no background V8 threads (each grew a
 * malloc arena of its own).
 */
export const WEB_NODE_FLAGS = ['--max-semi-space-size=1', '--single-threaded'];

/** Variables that say "inside a Claude / a klaude session": not the server's to inherit. */
const MARKS = [
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'KLAUDE_SESSION_ID',
  'KLAUDE_SOCKET',
  'KLAUDE_PROJECT_HASH',
  'KLAUDE_INSTANCE_ID',
  'KLAUDE_SWITCHED_FROM',
];

export function serverEnv(env: NodeJS.ProcessEnv, home: string): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = { ...env, KLAUDE_HOME: home };
  for (const k of MARKS) delete out[k];
  return out;
}

export interface WebStart {
  home: string;
  inv: KlaudeInvocation;
  env: NodeJS.ProcessEnv;
  host: string;
  port: number;
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

function spawnServer(o: WebStart): Promise<{ started: boolean }> {
  let errFd: number | 'ignore' = 'ignore';
  try {
    errFd = openSync(logFilePath(o.home), 'a', 0o600);
  } catch {
    /* no log file: crash output is lost */
  }
  const args = [...WEB_NODE_FLAGS, o.inv.cli, WEB_SERVER_COMMAND, '--host', o.host, '--port', String(o.port)];
  const child = spawn(o.inv.node, args, {
    cwd: '/',
    env: serverEnv(o.env, o.home),
    detached: true,
    stdio: ['ignore', 'pipe', errFd],
  });
  if (typeof errFd === 'number') closeSync(errFd);
  const hint = { hint: `see ${logFilePath(o.home)}` };
  return new Promise((resolve, reject) => {
    let text = '';
    let done = false;
    const settle = (fn: () => void): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      child.stdout!.destroy();
      child.removeAllListeners('exit');
      child.unref();
      fn();
    };
    const timer = setTimeout(
      () => settle(() => reject(new KlaudeError('E_TIMEOUT', 'the web server did not start in time', hint))),
      o.timeoutMs ?? 15_000,
    );
    child.once('error', (e) =>
      settle(() => reject(new KlaudeError('E_IO', `could not start the web server: ${e.message}`))),
    );
    child.once('exit', (code, sig) =>
      settle(() =>
        reject(new KlaudeError('E_IO', `the web server exited (${sig ?? `code ${code}`}) before it was ready`, hint)),
      ),
    );
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      let r: ReadyLine;
      try {
        r = JSON.parse(text.slice(0, nl)) as ReadyLine;
      } catch {
        settle(() => reject(new KlaudeError('E_PROTOCOL', 'the web server said something unexpected')));
        return;
      }
      if (r.ok) settle(() => resolve({ started: true }));
      else if (r.error?.code === 'E_WEB_RUNNING') settle(() => resolve({ started: false }));
      else {
        const why = r.error?.code === 'EADDRINUSE' ? `port ${o.port} is taken` : (r.error?.message ?? 'unknown error');
        settle(() =>
          reject(
            new KlaudeError('E_IO', `the web server could not start: ${why}`, {
              hint: r.error?.code === 'EADDRINUSE' ? 'choose another with --port' : hint.hint,
            }),
          ),
        );
      }
    });
  });
}

/**
 * Starting a PTY host: `node <klaude cli> __ptyhost <sessionId> <cols> <rows>`, detached (own
 * session and process group: it outlives the terminal and the `klaude talk` that started it).
 * Its stdout is a pipe only until its one ready line ({ok, pid, socket} or {error}): the starter
 * reads that line and lets go, so no polling for the socket. stderr goes to klaude's log file.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { logFilePath } from '../config/paths.js';
import type { KlaudeInvocation } from '../claude/shim.js';
import { KlaudeError, type ErrorCode } from '../lib/errors.js';
import type { Size } from './framing.js';

export const PTY_HOST_COMMAND = '__ptyhost';

/**
 * V8 flags for the host: it lives as long as its session and mostly moves bytes from the PTY to a
 * socket through a headless terminal, so a small young generation (1 MiB semi-spaces instead of
 * up to 16) keeps it from holding megabytes of garbage between scavenges while a CLI streams.
 */
export const PTY_HOST_NODE_FLAGS = ['--max-semi-space-size=1'];

/** The one line the host prints for whoever started it. */
export type HostReady =
  | { ok: true; pid: number; hostPid: number; socket: string }
  | { ok: false; error: { code: string; message: string; hint?: string } };

export interface SpawnPtyHostOptions {
  home: string;
  sessionId: string;
  inv: KlaudeInvocation;
  env: NodeJS.ProcessEnv;
  cwd: string;
  size: Size;
  timeoutMs?: number;
}

export interface StartedHost {
  /** The CLI's pid. */
  pid: number;
  hostPid: number;
  socket: string;
}

export function spawnPtyHost(o: SpawnPtyHostOptions): Promise<StartedHost> {
  let errFd: number | 'ignore' = 'ignore';
  try {
    errFd = openSync(logFilePath(o.home), 'a', 0o600);
  } catch {
    /* no log file: crash output is lost, nothing else */
  }
  const child = spawn(o.inv.node, [...PTY_HOST_NODE_FLAGS, o.inv.cli, PTY_HOST_COMMAND, o.sessionId, String(o.size.cols), String(o.size.rows)], {
    cwd: o.cwd,
    env: { ...o.env, KLAUDE_HOME: o.home },
    detached: true,
    stdio: ['ignore', 'pipe', errFd],
  });
  if (typeof errFd === 'number') closeSync(errFd);
  return new Promise<StartedHost>((resolve, reject) => {
    let text = '';
    let settled = false;
    const settle = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      child.stdout!.destroy();
      child.removeAllListeners('exit');
      child.unref();
      fn();
    };
    const timer = setTimeout(
      () => settle(() => reject(new KlaudeError('E_TIMEOUT', 'the PTY host did not start in time', { hint: `see ${logFilePath(o.home)}` }))),
      o.timeoutMs ?? 15_000,
    );
    child.once('error', (e) => settle(() => reject(new KlaudeError('E_IO', `could not start the PTY host: ${e.message}`, { cause: e }))));
    child.once('exit', (code, signal) =>
      settle(() =>
        reject(new KlaudeError('E_IO', `the PTY host exited (${signal ?? `code ${code}`}) before it was ready`, { hint: `see ${logFilePath(o.home)}` })),
      ),
    );
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      let r: HostReady;
      try {
        r = JSON.parse(text.slice(0, nl)) as HostReady;
      } catch {
        settle(() => reject(new KlaudeError('E_PROTOCOL', 'the PTY host said something unexpected')));
        return;
      }
      if (r.ok) settle(() => resolve({ pid: r.pid, hostPid: r.hostPid, socket: r.socket }));
      else settle(() => reject(new KlaudeError(r.error.code as ErrorCode, r.error.message, { hint: r.error.hint })));
    });
  });
}

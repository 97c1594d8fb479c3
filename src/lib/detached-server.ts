/**
 * Starting one of klaude's detached servers (the PTY server, the web server): `node …args` in its
 * own session with cwd `/` (it must hold no project's directory), stderr appended to klaude's log
 * file, and its first stdout line — a JSON "ready" document — handed back. The child is let go
 * (unref'd, stdout closed) once that line came, or it failed to start, exited, or took too long.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { KlaudeError } from './errors.js';

export interface DetachedServerStart {
  node: string;
  args: readonly string[];
  env: NodeJS.ProcessEnv;
  /** klaude's log file: the server's stderr goes there, and errors point to it. */
  logFile: string;
  /** "the PTY server", "the web server": for messages. */
  name: string;
  timeoutMs: number;
}

/** The server's ready line, parsed (the caller judges it). */
export function startDetachedServer(o: DetachedServerStart): Promise<unknown> {
  let errFd: number | 'ignore' = 'ignore';
  try {
    errFd = openSync(o.logFile, 'a', 0o600);
  } catch {
    /* no log file: crash output is lost, nothing else */
  }
  const child = spawn(o.node, [...o.args], { cwd: '/', env: o.env, detached: true, stdio: ['ignore', 'pipe', errFd] });
  if (typeof errFd === 'number') closeSync(errFd);
  const hint = { hint: `see ${o.logFile}` };
  return new Promise((resolve, reject) => {
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
    const fail = (e: KlaudeError): void => settle(() => reject(e));
    const timer = setTimeout(
      () => fail(new KlaudeError('E_TIMEOUT', `${o.name} did not start in time`, hint)),
      o.timeoutMs,
    );
    child.once('error', (e) => fail(new KlaudeError('E_IO', `could not start ${o.name}: ${e.message}`, { cause: e })));
    child.once('exit', (code, signal) =>
      fail(new KlaudeError('E_IO', `${o.name} exited (${signal ?? `code ${code}`}) before it was ready`, hint)),
    );
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (d: string) => {
      text += d;
      const nl = text.indexOf('\n');
      if (nl === -1) return;
      let ready: unknown;
      try {
        ready = JSON.parse(text.slice(0, nl));
      } catch {
        return fail(new KlaudeError('E_PROTOCOL', `${o.name} said something unexpected`));
      }
      settle(() => resolve(ready));
    });
  });
}

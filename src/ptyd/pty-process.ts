/**
 * The node-pty adapter: the only file in klaude that imports node-pty (docs/ARCHITECTURE.md, House rules).
 * Bytes in, bytes out (no string decoding: xterm and the attached terminal take UTF-8 as is, split
 * characters included). Guards node-pty's sharp edges: resize after exit throws EBADF
 * (docs/cli-facts.md §6), kill after exit throws.
 */
import * as nodePty from 'node-pty';

export interface PtyExitInfo {
  exitCode: number;
  /** Signal number, when the CLI was killed by one. */
  signal: number | null;
}

export interface PtyChild {
  readonly pid: number;
  readonly exited: boolean;
  write(data: Buffer | string): void;
  /** False when the CLI has exited (nothing to resize). */
  resize(cols: number, rows: number): boolean;
  kill(signal?: NodeJS.Signals): void;
  /** Stop reading the PTY (the CLI blocks on a full PTY buffer) / read again. */
  pause(): void;
  resume(): void;
  onData(cb: (data: Buffer) => void): void;
  onExit(cb: (e: PtyExitInfo) => void): void;
}

export interface PtySpawnOptions {
  cols: number;
  rows: number;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** $TERM for the CLI (default xterm-256color). */
  term?: string;
}

export function spawnInPty(file: string, args: string[], o: PtySpawnOptions): PtyChild {
  const env = Object.fromEntries(Object.entries(o.env).filter((e): e is [string, string] => e[1] !== undefined));
  const p = nodePty.spawn(file, args, {
    name: o.term ?? 'xterm-256color',
    cols: o.cols,
    rows: o.rows,
    cwd: o.cwd,
    env,
    encoding: null,
  });
  let exited = false;
  const exitCbs: ((e: PtyExitInfo) => void)[] = [];
  p.onExit(({ exitCode, signal }) => {
    exited = true;
    for (const cb of exitCbs) cb({ exitCode, signal: signal ? signal : null });
  });
  return {
    pid: p.pid,
    get exited() {
      return exited;
    },
    write(data) {
      if (!exited) p.write(data);
    },
    resize(cols, rows) {
      if (exited) return false;
      try {
        p.resize(cols, rows);
        return true;
      } catch (e) {
        if (/EBADF|ESRCH/.test(String(e))) return false;
        throw e;
      }
    },
    kill(signal = 'SIGTERM') {
      if (exited) return;
      try {
        p.kill(signal);
      } catch {
        /* already gone */
      }
    },
    pause() {
      if (!exited) p.pause();
    },
    resume() {
      if (!exited) p.resume();
    },
    onData(cb) {
      // With `encoding: null` node-pty hands out Buffers (its typings say string).
      p.onData((d: unknown) => cb(Buffer.isBuffer(d) ? d : Buffer.from(String(d), 'utf8')));
    },
    onExit(cb) {
      exitCbs.push(cb);
    },
  };
}

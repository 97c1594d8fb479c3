/**
 * The node-pty adapter: the only file in klaude that imports node-pty (docs/ARCHITECTURE.md, House rules).
 * Bytes in, bytes out (no string decoding: xterm and the attached terminal take UTF-8 as is, split
 * characters included). Guards node-pty's sharp edges: resize after exit throws EBADF
 * (docs/cli-facts.md §6), kill after exit throws.
 */
import { readSync } from 'node:fs';
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
  const dataCbs: ((data: Buffer) => void)[] = [];
  // With `encoding: null` node-pty hands out Buffers (its typings say string).
  p.onData((d: unknown) => {
    const data = Buffer.isBuffer(d) ? d : Buffer.from(String(d), 'utf8');
    for (const cb of dataCbs) cb(data);
  });
  keepLastOutput(p, (data) => {
    for (const cb of dataCbs) cb(data);
  });
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
      dataCbs.push(cb);
    },
    onExit(cb) {
      exitCbs.push(cb);
    },
  };
}

/** The parts of node-pty's UnixTerminal that `keepLastOutput` reaches into (not in its typings). */
interface PtyInternals {
  _socket?: { destroy: (...a: unknown[]) => unknown; read: () => unknown; destroyed?: boolean };
  _fd?: number;
}

/**
 * When the CLI exits, node-pty waits for the PTY's read side to close and, if that takes over 200 ms
 * (a busy or descheduled event loop, or reading paused for flow control), destroys it: whatever the
 * CLI wrote last and was not read yet is dropped — the final screen loses its last lines. Before
 * that destroy, hand out what the stream holds and what the PTY still has to read.
 */
function keepLastOutput(p: nodePty.IPty, deliver: (data: Buffer) => void): void {
  const inner = p as unknown as PtyInternals;
  const socket = inner._socket;
  const fd = inner._fd;
  if (!socket || typeof socket.destroy !== 'function' || typeof fd !== 'number') return;
  const destroy = socket.destroy.bind(socket);
  socket.destroy = (...args: unknown[]) => {
    // Once destroyed, the fd is closed and its number may be someone else's: never read it then.
    if (socket.destroyed === false) drain(socket, fd, deliver);
    return destroy(...args);
  };
}

function drain(socket: NonNullable<PtyInternals['_socket']>, fd: number, deliver: (data: Buffer) => void): void {
  try {
    for (let chunk = socket.read(); chunk !== null; chunk = socket.read()) {
      deliver(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk), 'utf8'));
    }
    const buf = Buffer.alloc(64 * 1024);
    // The PTY's fd is non-blocking: EAGAIN when nothing is left, EIO once the CLI's side is closed.
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) deliver(Buffer.from(buf.subarray(0, n)));
  } catch {
    /* nothing more to read */
  }
}

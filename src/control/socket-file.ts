/**
 * The socket file on disk: a private directory (0700), a private socket (0600), and what to do
 * with a file left behind by a supervisor that died without cleaning up.
 */
import { chmodSync, lstatSync, statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ensurePrivateDir, SOCKET_PATH_MAX } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { outsideRunDirOf, secureRunDir } from '../lib/secure-dir.js';

/** Create the socket's directory 0700 (tightening one we own that is wider); refuse one we don't own. */
export function preparePrivateSocketDir(socketPath: string): void {
  const dir = path.dirname(socketPath);
  try {
    // Outside the home (a predictable /tmp name), the run dir itself must pass tmux's rule;
    // the directories below it are ours to create (nobody else can write in a 0700 dir).
    const outside = outsideRunDirOf(dir);
    if (outside) secureRunDir(outside);
    ensurePrivateDir(dir);
    const st = lstatSync(dir);
    if (st.isSymbolicLink())
      throw new KlaudeError('E_INSECURE_RUNDIR', `socket directory ${dir} is a symlink`, {
        hint: 'remove it; klaude creates its own',
      });
    if (!st.isDirectory()) throw new KlaudeError('E_IO', `socket directory ${dir} is not a directory`);
    const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
    if (st.uid !== uid) {
      throw new KlaudeError('E_IO', `socket directory ${dir} belongs to another user (uid ${st.uid})`, {
        hint: 'set KLAUDE_HOME to a directory you own',
      });
    }
    if ((st.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  } catch (e) {
    if (e instanceof KlaudeError) throw e;
    throw new KlaudeError('E_IO', `cannot create socket directory ${dir}: ${(e as Error).message}`, { cause: e });
  }
}

export function checkSocketPathLength(socketPath: string): void {
  const bytes = Buffer.byteLength(socketPath);
  if (bytes > SOCKET_PATH_MAX) {
    throw new KlaudeError('E_IO', `socket path is too long (${bytes} bytes, limit ${SOCKET_PATH_MAX}): ${socketPath}`, {
      hint: 'use a shorter KLAUDE_HOME',
    });
  }
}

/** Try to connect: 'alive' if something accepts, 'stale' if refused, 'missing' if there is no file. */
export function probeSocket(socketPath: string, timeoutMs = 1000): Promise<'alive' | 'stale' | 'missing' | 'unknown'> {
  return new Promise((resolve) => {
    const sock = net.createConnection(socketPath);
    const done = (r: 'alive' | 'stale' | 'missing' | 'unknown'): void => {
      clearTimeout(timer);
      sock.destroy();
      resolve(r);
    };
    // A listener with a full backlog can stall the connect: treat that as alive (never unlink it).
    const timer = setTimeout(() => done('alive'), timeoutMs);
    sock.once('connect', () => done('alive'));
    sock.once('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNREFUSED') done('stale');
      else if (err.code === 'ENOENT') done('missing');
      else done('unknown');
    });
  });
}

/** Before listening: remove a stale socket file, refuse a live one or a file that is not a socket. */
export async function clearStaleSocket(socketPath: string): Promise<void> {
  let st;
  try {
    st = lstatSync(socketPath);
  } catch {
    return; // nothing there
  }
  if (!st.isSocket()) {
    throw new KlaudeError('E_IO', `${socketPath} exists and is not a socket`, {
      hint: 'remove it by hand if it is not needed',
    });
  }
  const state = await probeSocket(socketPath);
  if (state === 'alive') {
    throw new KlaudeError('E_IO', `another supervisor is already listening on ${socketPath}`);
  }
  if (state === 'unknown') {
    throw new KlaudeError('E_IO', `cannot tell whether ${socketPath} is in use`);
  }
  if (state === 'stale') {
    try {
      unlinkSync(socketPath);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new KlaudeError('E_IO', `cannot remove stale socket ${socketPath}: ${(e as Error).message}`, {
          cause: e,
        });
      }
    }
  }
}

/**
 * Listen on `socketPath` with the file created 0600. bind() happens synchronously inside
 * `listen()`, so a umask set around the call covers it; the chmod afterwards makes it exact.
 * Returns the socket file's inode so `close()` only unlinks the file it created.
 */
export function listenPrivate(server: net.Server, socketPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (err: NodeJS.ErrnoException): void => {
      reject(
        new KlaudeError('E_IO', `cannot listen on ${socketPath}: ${err.message}`, {
          cause: err,
          hint: err.code === 'EADDRINUSE' ? 'another supervisor started on the same path' : undefined,
        }),
      );
    };
    server.once('error', onError);
    let oldMask: number | undefined;
    try {
      oldMask = process.umask(0o177);
    } catch {
      // process.umask is unavailable in worker threads; the chmod below still applies.
    }
    try {
      server.listen(socketPath, () => {
        server.removeListener('error', onError);
        try {
          chmodSync(socketPath, 0o600);
          resolve(statSync(socketPath).ino);
        } catch (e) {
          server.close();
          reject(new KlaudeError('E_IO', `cannot secure socket ${socketPath}: ${(e as Error).message}`, { cause: e }));
        }
      });
    } finally {
      if (oldMask !== undefined) process.umask(oldMask);
    }
  });
}

/** Unlink the socket file if it is still the one we created. */
export function unlinkOwnSocket(socketPath: string, ino: number): void {
  try {
    if (statSync(socketPath).ino === ino) unlinkSync(socketPath);
  } catch {
    // already gone (libuv unlinks on close) or replaced: nothing to do
  }
}

/**
 * Run directories outside KLAUDE_HOME (`/tmp/klaude-<uid>-<hash>` when the home's path is too
 * long for socket paths) sit in a world-writable place under a predictable name: another local
 * user could create one first, serve a fake supervisor there and read every prompt sent to it.
 * tmux's rule applies: such a directory must be created by us, owned by us, mode 0700 and not a
 * symlink, else E_INSECURE_RUNDIR. A directory that fails the rule is never "fixed" (chmod'ed):
 * someone else may already hold it open.
 * Clients check a socket's owner before connecting (no other user can make a socket ours).
 */
import { lstatSync, mkdirSync, type Stats } from 'node:fs';
import path from 'node:path';
import { KlaudeError } from './errors.js';

/** The name of a run dir outside the home (see config/paths.ts runDir). */
export const OUTSIDE_RUNDIR = /^klaude-\d+-[0-9a-f]{8}$/;

const myUid = (): number | null => (typeof process.getuid === 'function' ? process.getuid() : null);

function insecure(dir: string, why: string): KlaudeError {
  return new KlaudeError('E_INSECURE_RUNDIR', `refusing the run directory ${dir}: ${why}`, {
    hint: `remove it if it is not yours (it must be a 0700 directory owned by you), or set KLAUDE_HOME to a shorter path`,
  });
}

function lstatOrNull(p: string): Stats | null {
  try {
    return lstatSync(p);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Verify `dir` by tmux's rule, creating it 0700 when missing. */
export function secureRunDir(dir: string): void {
  let st = lstatOrNull(dir);
  if (!st) {
    try {
      mkdirSync(dir, { mode: 0o700 }); // not recursive: its parent (the temp dir) must exist
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    st = lstatOrNull(dir);
    if (!st) throw insecure(dir, 'it vanished while being created');
  }
  if (st.isSymbolicLink()) throw insecure(dir, 'it is a symlink');
  if (!st.isDirectory()) throw insecure(dir, 'it is not a directory');
  const uid = myUid();
  if (uid !== null && st.uid !== uid) throw insecure(dir, `it belongs to another user (uid ${st.uid})`);
  // A mkdir under a umask like 077 is fine; anything wider was not made (or was changed) by us.
  if ((st.mode & 0o077) !== 0)
    throw insecure(dir, `its mode is ${(st.mode & 0o777).toString(8).padStart(4, '0')}, not 0700`);
}

/** The outside-home run dir among `p`'s ancestors (p included), or null when `p` is not under one. */
export function outsideRunDirOf(p: string): string | null {
  for (let dir = p; ; dir = path.dirname(dir)) {
    if (OUTSIDE_RUNDIR.test(path.basename(dir))) return dir;
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * Before connecting to a socket: it must be ours (uid). A socket of another user in our run dir
 * means the directory was not safe: E_INSECURE_RUNDIR. A missing socket is left to connect() to
 * report.
 */
export function assertOwnSocket(socketPath: string): void {
  const st = lstatOrNull(socketPath);
  const uid = myUid();
  if (!st || uid === null) return;
  if (st.uid !== uid) {
    throw new KlaudeError(
      'E_INSECURE_RUNDIR',
      `refusing to connect to ${socketPath}: it belongs to another user (uid ${st.uid})`,
      {
        hint: 'someone else may be impersonating klaude: remove that directory, or set KLAUDE_HOME elsewhere',
      },
    );
  }
}

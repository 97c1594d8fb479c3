/**
 * The mechanism under the watchdog (watchdog.ts) and the death notice (death-notice.ts): a tiny
 * detached `sh` that blocks reading a pipe only this process holds open. Node cannot set Linux's
 * PR_SET_PDEATHSIG, and macOS has no such thing; but when this process dies by any signal the
 * kernel closes its end of the pipe, the `sh` reads EOF and acts. The `sh` runs in its own
 * session (no terminal signal reaches it) and outlives this process by design. It costs one `sh`
 * (~1.6 MB, no CPU: blocked in read). Disposing of it kills it rather than closing the pipe, so
 * it does not act.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { signalGroup } from '../lib/process.js';

export interface EofWatcher {
  /** This process no longer needs the watcher: kill it without it acting (idempotent). */
  dispose(): void;
  readonly pid: number | undefined;
}

export interface EofWatcherOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Where the watcher's stderr goes (an fd open for append), else nowhere. */
  stderrFd?: number;
}

/**
 * Start `sh -c script name ...args`; the script reads its stdin (the pipe) to EOF, then acts.
 * With no `/bin/sh` the watcher is absent and disposing of it does nothing (reconcile is the fallback).
 */
export function startEofWatcher(
  script: string,
  name: string,
  args: readonly string[],
  opts: EofWatcherOptions = {},
): EofWatcher {
  let sh: ChildProcess | null = null;
  try {
    sh = spawn('/bin/sh', ['-c', script, name, ...args], {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['pipe', 'ignore', opts.stderrFd ?? 'ignore'],
      detached: true,
    });
  } catch {
    sh = null;
  }
  if (sh) {
    sh.once('error', () => undefined);
    sh.stdin?.on('error', () => undefined);
    // Neither the watcher nor our end of its pipe may keep this process alive.
    sh.unref();
    (sh.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }
  let disposed = false;
  return {
    pid: sh?.pid,
    dispose() {
      if (disposed || !sh) return;
      disposed = true;
      if (sh.pid && sh.exitCode === null) signalGroup(sh.pid, 'SIGKILL');
      sh.stdin?.destroy();
    },
  };
}

/**
 * Ending a child when its owner dies by any signal, SIGKILL included. Node cannot set Linux's
 * PR_SET_PDEATHSIG, and macOS has no such thing, so the owner starts a tiny `sh` watchdog that
 * blocks reading a pipe only the owner holds open. When the owner dies the kernel closes its end;
 * the watchdog reads EOF and ends the child: SIGTERM (+SIGCONT, in case a terminal read stopped
 * it), SIGKILL after a grace. Before each signal it checks the child's start time
 * (/proc/<pid>/stat field 22), so a pid reused meanwhile is never hit.
 *
 * The watchdog runs detached (its own session): no terminal signals reach it, and it outlives the
 * owner by design. It costs one `sh` (~1.6 MB) per guarded child (an owner of many children uses
 * watchdog-pool.ts: one for all). When the child exits normally the owner disposes of the
 * watchdog (SIGKILL to its group).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { processStartTime, signalGroup } from '../lib/process.js';

/**
 * Ending one guarded child, in sh: `end_child pid start tenths group` (start '-' = unknown, group
 * '-' = none). SIGTERM + SIGCONT to the pid or its group, SIGKILL after `tenths` tenths of a second,
 * each only while the pid is still the process that started at `start`. Shared with watchdog-pool.ts.
 */
export const END_CHILD_SH = `
startof() { s=$(cat /proc/$1/stat 2>/dev/null) || return 0; s=\${s##*) }; set -- $s; echo "\${20}"; }
same() { kill -0 "$1" 2>/dev/null || return 1; [ "$2" = - ] || [ ! -r /proc/$1/stat ] || [ "$(startof "$1")" = "$2" ]; }
end_child() {
  same "$1" "$2" || return 0
  target="$1"; [ "$4" != - ] && target="-$4"
  kill -s TERM -- "$target" 2>/dev/null; kill -s CONT -- "$target" 2>/dev/null
  i=0
  while [ "$i" -lt "$3" ]; do same "$1" "$2" || return 0; sleep 0.1; i=$((i+1)); done
  same "$1" "$2" && kill -s KILL -- "$target" 2>/dev/null
  return 0
}
`;

// $1 pid, $2 start time, $3 grace in tenths of a second, $4 process group to end (see END_CHILD_SH).
const SCRIPT = `${END_CHILD_SH}
while read -r _; do :; done
end_child "$1" "$2" "$3" "$4"
exit 0
`;

export interface Watchdog {
  /** The child ended normally: stop watching (idempotent). */
  dispose(): void;
  readonly pid: number | undefined;
}

export interface WatchOptions {
  /** Between SIGTERM and SIGKILL (default 3 s). */
  graceMs?: number;
  /** End this whole process group instead of the pid (the group must contain the child). */
  group?: number;
}

/** Watch `childPid` on behalf of this process: if this process dies first, the child is ended. */
export function guardChild(childPid: number, opts: WatchOptions = {}): Watchdog {
  const start = processStartTime(childPid);
  const tenths = Math.max(1, Math.round((opts.graceMs ?? 3000) / 100));
  let wd: ChildProcess | null = null;
  try {
    wd = spawn(
      '/bin/sh',
      [
        '-c',
        SCRIPT,
        'klaude-watchdog',
        String(childPid),
        start === null ? '-' : String(start),
        String(tenths),
        opts.group ? String(opts.group) : '-',
      ],
      {
        stdio: ['pipe', 'ignore', 'ignore'],
        detached: true,
      },
    );
  } catch {
    wd = null; // no /bin/sh: reconcile is the fallback
  }
  if (wd) {
    wd.once('error', () => undefined);
    wd.stdin?.on('error', () => undefined);
    // Neither the watchdog nor our end of its pipe may keep this process alive.
    wd.unref();
    (wd.stdin as unknown as { unref?: () => void } | null)?.unref?.();
  }
  let disposed = false;
  return {
    pid: wd?.pid,
    dispose() {
      if (disposed || !wd) return;
      disposed = true;
      // Killed, not EOF'd: an EOF would make it end the child.
      if (wd.pid && wd.exitCode === null) signalGroup(wd.pid, 'SIGKILL');
      wd.stdin?.destroy();
    },
  };
}

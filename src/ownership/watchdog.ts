/**
 * Ending a child when its owner dies by any signal, SIGKILL included: an EOF watcher
 * (eof-watcher.ts) that, once the owner is gone, ends the child: SIGTERM (+SIGCONT, in case a terminal read stopped
 * it), SIGKILL after a grace. Before each signal it checks the child's identity
 * (its start time), so a pid reused meanwhile is never hit.
 *
 * One `sh` per guarded child (an owner of many children uses watchdog-pool.ts: one for all). When
 * the child exits normally the owner disposes of the watchdog.
 */
import { processStartTime } from '../lib/process.js';
import { startEofWatcher, type EofWatcher } from './eof-watcher.js';

/**
 * Ending one guarded child, in POSIX sh. `arm_ident pid start` gives the child's identity when it
 * starts being guarded: its start time from /proc (field 22) where /proc exists, else `ps -o
 * lstart=` (macOS); empty when the pid is already not the process node saw start at `start` ('-':
 * unknown to node), and empty for a zombie (dead, not yet reaped: a lazy init may never), so a
 * dead child is never waited for nor signalled. `end_child pid ident tenths group` (group '-' = none): SIGTERM + SIGCONT to
 * the pid or its group, SIGKILL after `tenths` tenths of a second, each only while the pid is still
 * that process; with no identity it signals nothing (a pid alone is never enough). `sleep 0.1` is
 * not POSIX: where it fails, the wait goes by whole seconds. Shared with watchdog-pool.ts.
 */
export const END_CHILD_SH = `
ident() {
  if [ -r "/proc/$1/stat" ]; then
    s=$(cat "/proc/$1/stat" 2>/dev/null) || return 0
    s=\${s##*) }; set -- $s
    case $1 in Z*|X*|x*) ;; *) echo "proc:\${20}" ;; esac
  else
    s=$(ps -o stat=,lstart= -p "$1" 2>/dev/null) && [ -n "$s" ] || return 0
    set -- $s; case $1 in Z*|X*) ;; *) shift; echo "ps:$*" ;; esac
  fi
  return 0
}
arm_ident() {
  id=$(ident "$1")
  case $2 in -) ;; *) [ "$id" = "proc:$2" ] || [ "\${id%%:*}" = ps ] || id='' ;; esac
  echo "$id"
}
same() { kill -0 "$1" 2>/dev/null && [ -n "$2" ] && [ "$(ident "$1")" = "$2" ]; }
nap() { if sleep 0.1 2>/dev/null; then i=$((i+1)); else sleep 1; i=$((i+10)); fi; }
end_child() {
  same "$1" "$2" || return 0
  target="$1"; [ "$4" != - ] && target="-$4"
  kill -s TERM -- "$target" 2>/dev/null; kill -s CONT -- "$target" 2>/dev/null
  i=0
  while [ "$i" -lt "$3" ]; do same "$1" "$2" || return 0; nap; done
  same "$1" "$2" && kill -s KILL -- "$target" 2>/dev/null
  return 0
}
`;

/**
 * Ending what is left of a session once its leader is dead (Linux /proc; elsewhere nothing is
 * found): every live member gets SIGTERM + SIGCONT, SIGKILL after `tenths` for what is still
 * there. Members are read with builtins only (no fork while scanning), and a pid's session is read
 * again just before each signal. The watchdog runs in a session of its own (eof-watcher.ts).
 */
const END_SESSION_SH = `
signal_members() {
  for f in /proc/[0-9]*/stat; do
    read -r s 2>/dev/null < "$f" || continue
    p=\${s%% *}; s=\${s##*) }; set -- $s
    case $1 in Z*|X*|x*) continue ;; esac
    [ "$4" = "$sid" ] && [ "$p" != $$ ] && for sig in $sigs; do kill -s "$sig" "$p" 2>/dev/null; done
  done
  return 0
}
end_session() {
  sid=$1; tenths=$2; [ -r /proc/self/stat ] || return 0
  sigs='TERM CONT'; signal_members
  i=0
  while [ "$i" -lt "$tenths" ]; do
    found=0
    for f in /proc/[0-9]*/stat; do
      read -r s 2>/dev/null < "$f" || continue
      p=\${s%% *}; s=\${s##*) }; set -- $s
      case $1 in Z*|X*|x*) continue ;; esac
      [ "$4" = "$sid" ] && [ "$p" != $$ ] && { found=1; break; }
    done
    [ "$found" = 0 ] && return 0
    nap
  done
  sigs=KILL; signal_members
  return 0
}
`;

// $1 pid, $2 start time, $3 grace in tenths of a second, $4 process group to end (see END_CHILD_SH),
// $5 session whose members are ended after the child ('-' none).
const SCRIPT = `${END_CHILD_SH}${END_SESSION_SH}
id=$(arm_ident "$1" "$2")
while read -r _; do :; done
end_child "$1" "$id" "$3" "$4"
[ "$5" = - ] || end_session "$5" "$3"
exit 0
`;

/** dispose(): the child ended normally, stop watching (idempotent). */
export type Watchdog = EofWatcher;

export interface WatchOptions {
  /** Between SIGTERM and SIGKILL (default 3 s). */
  graceMs?: number;
  /** End this whole process group instead of the pid (the group must contain the child). */
  group?: number;
  /**
   * After the child, end every process still in this session (the owner's own, which it leads):
   * what the child started in groups of their own and left behind (session-strays.ts).
   */
  session?: number;
}

/** Watch `childPid` on behalf of this process: if this process dies first, the child is ended. */
export function guardChild(childPid: number, opts: WatchOptions = {}): Watchdog {
  const start = processStartTime(childPid);
  const tenths = Math.max(1, Math.round((opts.graceMs ?? 3000) / 100));
  return startEofWatcher(SCRIPT, 'klaude-watchdog', [
    String(childPid),
    start === null ? '-' : String(start),
    String(tenths),
    opts.group ? String(opts.group) : '-',
    opts.session ? String(opts.session) : '-',
  ]);
}

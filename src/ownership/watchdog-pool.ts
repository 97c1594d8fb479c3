/**
 * One watchdog for all the children of an owner that has many (the PTY server: one CLI per
 * session). The same guarantee as watchdog.ts, which spends one `sh` per child: when the owner
 * dies, by any signal, its children are ended (SIGTERM + SIGCONT, SIGKILL after the grace, each
 * checked against its start time so a reused pid is never hit). Here one `sh` reads the owner's
 * pipe: `+ pid start tenths group` starts guarding a child, `- pid` stops; at EOF (the owner is
 * gone) it ends every child still listed, all at once.
 *
 * If that `sh` dies (someone killed it), the next guard starts another and lists every child
 * again.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { processStartTime } from '../lib/process.js';
import { END_CHILD_SH, type Watchdog, type WatchOptions } from './watchdog.js';

// `+ pid start tenths group` ('-' when empty: read would shift the fields otherwise); the list keeps
// `pid tenths group identity`, the identity last as it may hold spaces (`ps -o lstart=`).
const SCRIPT = `${END_CHILD_SH}
list=''
nl='
'
while read -r op pid start tenths group; do
  case $op in
    +) list="$list$pid $tenths $group $(arm_ident "$pid" "$start")$nl" ;;
    -) rest=''
       while IFS= read -r l; do
         [ -n "$l" ] || continue
         case $l in "$pid "*) ;; *) rest="$rest$l$nl" ;; esac
       done <<EOF
$list
EOF
       list=$rest ;;
  esac
done
printf '%s' "$list" | { while read -r p t g id; do [ -n "$p" ] && end_child "$p" "$id" "$t" "$g" & done; wait; }
exit 0
`;

interface Entry {
  line: string;
}

export class WatchdogPool {
  private wd: ChildProcess | null = null;
  private readonly entries = new Map<number, Entry>();

  /** The `sh` guarding the children now (undefined before the first guard, or without /bin/sh). */
  get pid(): number | undefined {
    return this.wd?.pid;
  }

  /** Guard `childPid` on behalf of this process (see watchdog.ts's guardChild). */
  guard(childPid: number, opts: WatchOptions = {}): Watchdog {
    const start = processStartTime(childPid);
    const tenths = Math.max(1, Math.round((opts.graceMs ?? 3000) / 100));
    const entry: Entry = { line: `+ ${childPid} ${start === null ? '-' : start} ${tenths} ${opts.group ?? '-'}\n` };
    this.entries.set(childPid, entry);
    if (!this.live()) this.respawn();
    else this.send(entry.line);
    let disposed = false;
    return {
      pid: this.wd?.pid,
      dispose: () => {
        if (disposed) return;
        disposed = true;
        if (this.entries.get(childPid) !== entry) return;
        this.entries.delete(childPid);
        this.send(`- ${childPid}\n`);
      },
    };
  }

  private live(): boolean {
    return (
      this.wd !== null && this.wd.exitCode === null && this.wd.signalCode === null && this.wd.stdin?.writable === true
    );
  }

  /** A new `sh`, told about every child still guarded. */
  private respawn(): void {
    let wd: ChildProcess;
    try {
      wd = spawn('/bin/sh', ['-c', SCRIPT, 'klaude-watchdog'], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
    } catch {
      this.wd = null; // no /bin/sh: reconcile is the fallback
      return;
    }
    wd.once('error', () => undefined);
    wd.stdin?.on('error', () => undefined);
    wd.once('exit', () => {
      if (this.wd === wd) this.wd = null;
    });
    // Neither the watchdog nor our end of its pipe may keep this process alive.
    wd.unref();
    (wd.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    this.wd = wd;
    this.send([...this.entries.values()].map((e) => e.line).join(''));
  }

  private send(text: string): void {
    if (text && this.live()) this.wd!.stdin!.write(text);
  }
}

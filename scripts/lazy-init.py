#!/usr/bin/env python3
"""PID 1 of a test PID namespace that reaps orphans late, or never.

Real machines differ in how soon an orphaned process that died is reaped: systemd does it at once,
a container started without --init never does, some VMs' init every second or two. Until it is
reaped a dead process is a zombie: its pid answers kill(0) and /proc/<pid>/stat still holds its
start time. klaude's liveness must not be fooled by that, so its death, queue and recovery suites
also run under this init (scripts/test-passes.mjs), started by
`unshare --pid --fork --mount-proc python3 scripts/lazy-init.py --reap-every 3 -- <command…>`.

  --reap-every S   reap every orphan only once every S seconds (a slow init)
  --never          reap nothing but the command itself (a container without --init)

Exits with the command's status; SIGTERM/SIGINT/SIGHUP are passed on to it.
"""
import os
import signal
import sys
import time


def parse(argv):
    if '--' not in argv:
        sys.exit('usage: lazy-init.py (--reap-every SECONDS | --never) -- command [args...]')
    cut = argv.index('--')
    opts, command = argv[:cut], argv[cut + 1:]
    if opts == ['--never'] and command:
        return None, command
    if len(opts) == 2 and opts[0] == '--reap-every' and command:
        return float(opts[1]), command
    sys.exit('usage: lazy-init.py (--reap-every SECONDS | --never) -- command [args...]')


def status_of(raw):
    if os.WIFEXITED(raw):
        return os.WEXITSTATUS(raw)
    return 128 + os.WTERMSIG(raw)


def main():
    every, command = parse(sys.argv[1:])
    child = os.fork()
    if child == 0:
        os.execvp(command[0], command)

    def forward(signum, _frame):
        try:
            os.kill(child, signum)
        except ProcessLookupError:
            pass

    # PID 1 gets no signal it has no handler for: pass the usual ones on to the command.
    for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(s, forward)

    if every is None:
        while True:
            try:
                _, raw = os.waitpid(child, 0)
                sys.exit(status_of(raw))
            except InterruptedError:
                continue

    while True:
        time.sleep(every)
        # Everyone that died since the last round, the command included.
        while True:
            try:
                pid, raw = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                sys.exit(1)
            if pid == 0:
                break
            if pid == child:
                sys.exit(status_of(raw))


if __name__ == '__main__':
    main()

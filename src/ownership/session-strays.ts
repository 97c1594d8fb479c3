/**
 * What an agent's CLI leaves behind, found by session. A runtime runs detached, so it leads a
 * session of its own, and everything its CLI starts stays in that session even when it takes a
 * process group of its own (codex puts its commands and its bubblewrap helpers in new groups) and
 * when its parent dies and init adopts it. Ending the CLI's group misses those; a process of the
 * session no longer below the runtime is such a stray, and the runtime ends it when its CLI ends.
 * (A process that starts a session of its own leaves; bubblewrap's sandboxed child does, and dies
 * with the bubblewrap above it, which stays.)
 *
 * Linux only (/proc): where /proc is missing this finds nothing, and the group is what is ended.
 */
import { readdirSync } from 'node:fs';
import { isDeadState, procStat, sleep } from '../lib/process.js';

interface Member {
  pid: number;
  ppid: number;
  session: number;
  dead: boolean;
}

function readMember(procRoot: string, pid: number): Member | null {
  const st = procStat(pid, procRoot);
  return st ? { pid, ppid: st.ppid, session: st.session, dead: isDeadState(st.state) } : null;
}

function allProcesses(procRoot: string): Map<number, Member> {
  const all = new Map<number, Member>();
  let names: string[];
  try {
    names = readdirSync(procRoot);
  } catch {
    return all;
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const m = readMember(procRoot, pid);
    if (m) all.set(pid, m);
  }
  return all;
}

/** Whether `pid`'s chain of parents reaches `owner` (a loop or a gap in /proc ends the walk: no). */
function isBelow(pid: number, owner: number, all: Map<number, Member>): boolean {
  let at = all.get(pid);
  for (let hops = 0; at && hops < 4096; hops++) {
    if (at.ppid === owner) return true;
    if (at.ppid <= 1) return false;
    at = all.get(at.ppid);
  }
  return false;
}

/** Live processes of session `sid` that are not `owner` and not below it. */
export function sessionStrays(sid: number, owner: number, procRoot = '/proc'): number[] {
  const all = allProcesses(procRoot);
  const strays: number[] = [];
  for (const m of all.values()) {
    if (m.session !== sid || m.pid === owner || m.dead) continue;
    if (!isBelow(m.pid, owner, all)) strays.push(m.pid);
  }
  return strays;
}

/** The session `pid` belongs to (/proc stat field 6); null where unknown. */
export function sessionOf(pid: number, procRoot = '/proc'): number | null {
  return readMember(procRoot, pid)?.session ?? null;
}

/** Signal each pid still a live member of `sid` (read again just before: a pid may have been reused). */
function signalMembers(pids: readonly number[], sid: number, signals: NodeJS.Signals[], procRoot: string): void {
  for (const pid of pids) {
    const m = readMember(procRoot, pid);
    if (!m || m.session !== sid || m.dead) continue;
    for (const s of signals) {
      try {
        process.kill(pid, s);
      } catch {
        /* gone meanwhile */
      }
    }
  }
}

/**
 * End the strays of this process's session (it must lead it): SIGTERM (+SIGCONT, should one be
 * stopped), SIGKILL after `graceMs` for what is still there, new strays included. Resolves with
 * how many there were, once they are gone.
 */
export async function endSessionStrays(graceMs = 2000, procRoot = '/proc'): Promise<number> {
  const sid = process.pid;
  if (sessionOf(sid, procRoot) !== sid) return 0;
  const first = sessionStrays(sid, sid, procRoot);
  if (first.length === 0) return 0;
  signalMembers(first, sid, ['SIGTERM', 'SIGCONT'], procRoot);
  for (let waited = 0; waited < graceMs; waited += 100) {
    if (sessionStrays(sid, sid, procRoot).length === 0) return first.length;
    await sleep(100);
  }
  signalMembers(sessionStrays(sid, sid, procRoot), sid, ['SIGKILL'], procRoot);
  // SIGKILL is delivered when the process next runs: wait (a little) for it to be gone.
  for (let waited = 0; waited < 1000 && sessionStrays(sid, sid, procRoot).length > 0; waited += 20) await sleep(20);
  return first.length;
}

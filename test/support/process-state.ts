// What the tests ask of the pid table, zombie-aware: under a lazily reaping init (scripts/lazy-init.py)
// a process that died stays listed, as a zombie, until it is reaped, and kill(0) still reaches it.
import { readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name: [state, ppid, pgid, …]. */
function statRest(pid: string): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A living (not zombie) process is in the process group `pgid`. */
export function groupHasLiving(pgid: number): boolean {
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const rest = statRest(pid);
    if (rest && Number(rest[2]) === pgid && !/^[ZXx]/.test(rest[0]!)) return true;
  }
  return false;
}

/** Living (not zombie) processes whose command line mentions `text`, as `pid: command line`. */
export function livingMentioning(text: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    const rest = statRest(pid);
    if (!rest || /^[ZXx]/.test(rest[0]!)) continue;
    let cmdline: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      continue;
    }
    if (cmdline.includes(text)) found.push(`${pid}: ${cmdline.slice(0, 200)}`);
  }
  return found;
}

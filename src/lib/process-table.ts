/**
 * A snapshot of the machine's processes as the person-check needs them (ownership/answerer.ts):
 * parent, process group, session, controlling terminal and that terminal's foreground group.
 * From /proc/<pid>/stat on Linux, else from `ps -axo` (macOS, BSDs). A few ms on Linux.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  /** Controlling terminal: /proc's tty_nr, or ps's tty name; 0 / '' when none. */
  tty: number | string;
  /** The foreground process group of that terminal (-1 when none). */
  tpgid: number;
}

export type ProcessTable = Map<number, ProcInfo>;

/** Fields after the command (which may hold spaces and parentheses) of a /proc/<pid>/stat line. */
export function parseStat(pid: number, line: string): ProcInfo | null {
  const f = line.slice(line.lastIndexOf(')') + 2).split(' ');
  // f[0] state, f[1] ppid, f[2] pgrp, f[3] session, f[4] tty_nr, f[5] tpgid
  if (f.length < 6) return null;
  return { pid, ppid: Number(f[1]), pgrp: Number(f[2]), tty: Number(f[4]), tpgid: Number(f[5]) };
}

function fromProc(root: string): ProcessTable | null {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return null;
  }
  const table: ProcessTable = new Map();
  for (const n of names) {
    if (!/^\d+$/.test(n)) continue;
    try {
      const info = parseStat(Number(n), readFileSync(`${root}/${n}/stat`, 'utf8'));
      if (info) table.set(info.pid, info);
    } catch {
      /* gone meanwhile */
    }
  }
  return table;
}

/** `ps -axo pid=,ppid=,pgid=,tpgid=,tty=` output; a tty of `?` or `??` is none. */
export function parsePs(out: string): ProcessTable {
  const table: ProcessTable = new Map();
  for (const line of out.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5) continue;
    const [pid, ppid, pgrp, tpgid] = f.slice(0, 4).map(Number) as [number, number, number, number];
    const tty = f[4] === '?' || f[4] === '??' ? '' : f[4]!;
    table.set(pid, { pid, ppid, pgrp, tty, tpgid });
  }
  return table;
}

function fromPs(): ProcessTable | null {
  try {
    const out = execFileSync('ps', ['-axo', 'pid=,ppid=,pgid=,tpgid=,tty='], {
      encoding: 'utf8',
      env: { PATH: '/usr/sbin:/sbin:/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    return parsePs(out);
  } catch {
    return null;
  }
}

/** Every process now; null when neither /proc nor ps can be read. */
export function processTable(procRoot = '/proc'): ProcessTable | null {
  return fromProc(procRoot) ?? fromPs();
}

/** `pid` and its ancestors, nearest first (stops at a loop or a pid missing from the table). */
export function ancestry(table: ProcessTable, pid: number): number[] {
  const chain: number[] = [];
  for (let p: number | undefined = pid; p && p > 0 && !chain.includes(p); p = table.get(p)?.ppid) {
    if (!table.has(p)) break;
    chain.push(p);
  }
  return chain;
}

/** A terminal for people: /dev/pts/N for Linux's pseudo-terminals, the tty name from ps as it is. */
export function ttyName(tty: number | string): string {
  if (typeof tty === 'string') return tty ? `/dev/${tty.replace(/^\/dev\//, '')}` : '';
  if (tty === 0) return '';
  const major = (tty >> 8) & 0xfff;
  const minor = (tty & 0xff) | ((tty >> 12) & 0xfff00);
  return major >= 136 && major <= 143 ? `/dev/pts/${(major - 136) * 256 + minor}` : `tty ${major}:${minor}`;
}

/**
 * Records of the zone serve processes of this home (`klaude __zone-serve`, src/zones/serve.ts):
 * one file per process, `<home>/zones/serve/<pid>.json` (0600), written when it starts and removed
 * when it ends. The answerer (answerer.ts) takes an answer arriving from such a process as the
 * person's — carried over the zone link from the person's own machine — only if it still runs
 * (pid and start time) and came in through sshd (an sshd is among its ancestors): a process an
 * agent here started could write a record, but not make sshd its parent.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { isSameProcess, processStartTime } from '../lib/process.js';
import { ancestry, type ProcessTable } from '../lib/process-table.js';

interface ServeRecord {
  pid: number;
  pidStart: number | null;
}

const dirOf = (home: string): string => path.join(home, 'zones', 'serve');

/** Record this process; returns the function that removes the record. */
export function recordZoneServe(home: string): () => void {
  const dir = ensurePrivateDir(dirOf(home));
  const file = path.join(dir, `${process.pid}.json`);
  const rec: ServeRecord = { pid: process.pid, pidStart: processStartTime(process.pid) };
  writeFileSync(file, JSON.stringify(rec), { mode: 0o600 });
  return () => rmSync(file, { force: true });
}

/** Pids of the zone serve processes of this home that still run (stale records are removed). */
export function liveZoneServes(home: string): Set<number> {
  const out = new Set<number>();
  const dir = dirOf(home);
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    if (!name.endsWith('.json')) continue;
    const file = path.join(dir, name);
    try {
      const r = JSON.parse(readFileSync(file, 'utf8')) as Partial<ServeRecord>;
      if (typeof r.pid === 'number' && isSameProcess(r.pid, r.pidStart ?? null)) out.add(r.pid);
      else rmSync(file, { force: true });
    } catch {
      /* half-written by a starting process, or gone meanwhile */
    }
  }
  return out;
}

/** A process's command name: `/proc/<pid>/comm`, else `ps -o comm=` (macOS, BSDs); null when neither says. */
function commandName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    /* no /proc: ask ps */
  }
  try {
    const out = execFileSync('ps', ['-o', 'comm=', '-p', String(pid)], {
      encoding: 'utf8',
      env: { PATH: '/usr/sbin:/sbin:/usr/bin:/bin', LC_ALL: 'C' },
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    });
    return path.basename(out.trim()) || null;
  } catch {
    return null;
  }
}

/**
 * Whether `pid` came in through sshd: one of its ancestors is an sshd (OpenSSH ≥ 9.8 names the
 * per-connection process `sshd-session`). A name that cannot be read counts as no.
 */
export function cameThroughSshd(table: ProcessTable, pid: number, name = commandName): boolean {
  return ancestry(table, pid)
    .slice(1)
    .some((a) => /^sshd/.test(name(a) ?? ''));
}

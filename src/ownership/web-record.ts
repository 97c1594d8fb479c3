/**
 * The record of this home's web server (`klaude web`, src/web/): `<home>/web/server.json`, 0600,
 * written by the server itself. It is the lock that keeps one server per home (created with
 * O_EXCL; a record whose process is gone is stale and taken over), how `klaude web` finds the
 * running server, and how the answerer (answerer.ts) knows that an answer arriving from that
 * process is the person's: the server sends answers only for requests of an authenticated page.
 */
import { closeSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { isSameProcess, processStartTime } from '../lib/process.js';

export interface WebRecord {
  pid: number;
  pidStart: number | null;
  /** Bound address and port; port 0 while the server is still starting. */
  host: string;
  port: number;
  startedAt: number;
  /** DNS names it answers to besides addresses and localhost (`klaude web --allow-host`). */
  allowHosts?: string[];
}

export const webDir = (home: string): string => path.join(home, 'web');
export const webRecordPath = (home: string): string => path.join(webDir(home), 'server.json');

/** The record as written, or null (none, or unreadable). */
export function readWebRecord(home: string): WebRecord | null {
  try {
    const r = JSON.parse(readFileSync(webRecordPath(home), 'utf8')) as Partial<WebRecord>;
    if (typeof r.pid !== 'number' || typeof r.port !== 'number' || typeof r.host !== 'string') return null;
    const allowHosts = Array.isArray(r.allowHosts) ? r.allowHosts.filter((h) => typeof h === 'string') : [];
    return {
      pid: r.pid,
      pidStart: r.pidStart ?? null,
      host: r.host,
      port: r.port,
      startedAt: r.startedAt ?? 0,
      ...(allowHosts.length ? { allowHosts } : {}),
    };
  } catch {
    return null;
  }
}

/** The record of a server that still runs (pid and start time match), else null. */
export function liveWebRecord(home: string): WebRecord | null {
  const r = readWebRecord(home);
  return r && isSameProcess(r.pid, r.pidStart) ? r : null;
}

/**
 * Take the lock for this process: create the record (O_EXCL). A record of a process that is gone
 * is removed and the create tried again; a live one is returned (another server runs).
 */
export function claimWebRecord(home: string, host: string): { claimed: true } | { claimed: false; running: WebRecord } {
  ensurePrivateDir(webDir(home));
  const mine: WebRecord = {
    pid: process.pid,
    pidStart: processStartTime(process.pid),
    host,
    port: 0,
    startedAt: Date.now(),
  };
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(webRecordPath(home), 'wx', 0o600);
      try {
        writeSync(fd, JSON.stringify(mine));
      } finally {
        closeSync(fd);
      }
      return { claimed: true };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const other = readWebRecord(home);
    if (other && isSameProcess(other.pid, other.pidStart)) return { claimed: false, running: other };
    // Stale (its server died) or half-written by a starter that died: remove it and try again.
    try {
      unlinkSync(webRecordPath(home));
    } catch {
      /* another starter removed it first */
    }
  }
  const other = readWebRecord(home);
  if (other) return { claimed: false, running: other };
  throw new Error('could not take the web server record');
}

/** Fill in the port once listening (temp file + rename: readers never see half a record). */
export function publishWebRecord(home: string, r: WebRecord): void {
  const tmp = `${webRecordPath(home)}.${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, JSON.stringify(r));
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, webRecordPath(home));
}

/** Remove the record if it is this process's. */
export function dropWebRecord(home: string): void {
  if (readWebRecord(home)?.pid !== process.pid) return;
  try {
    unlinkSync(webRecordPath(home));
  } catch {
    /* already gone */
  }
}

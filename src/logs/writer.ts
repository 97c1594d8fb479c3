/**
 * The session log writer: `<logs>/<session>.ndjson`, append-only NDJSON, one AgentEvent per line.
 *
 * - The file is opened O_APPEND and created 0600 (its directory 0700); each event is one
 *   `writeSync` of one complete line, so concurrent appenders (a resumed runtime, a reaper writing
 *   a `done` for a dead runtime) never interleave inside a line and followers never see a torn
 *   line for longer than one write.
 * - A writer that died mid-write (SIGKILL, full disk) leaves a torn last line. Before appending,
 *   a missing final newline is added, so the torn line stays one unreadable (skipped, counted)
 *   line instead of swallowing the next event glued to it.
 * - Writes are synchronous: nothing is buffered in the process, so a crash loses no event that
 *   was appended. `close()` fsyncs (best effort).
 */
import { closeSync, constants as fsc, fchmodSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { AgentEvent, AgentEventInput } from '../core/events.js';
import { ensurePrivateDir } from '../config/paths.js';

export interface SessionLogWriter {
  readonly file: string;
  /** Stamp (`ts`) and append one event; returns the stamped event. A closed writer drops it. */
  append(event: AgentEventInput): AgentEvent;
  close(): void;
}

/** Create the log file (and its private directory) if missing, without writing to it. */
export function touchSessionLog(file: string): void {
  closeSync(openPrivate(file));
}

export function openSessionLog(file: string): SessionLogWriter {
  let fd: number | null = openPrivate(file);
  return {
    file,
    append(event) {
      const stamped = { ts: Date.now(), ...event } as AgentEvent;
      if (fd === null) return stamped;
      const line = Buffer.from(`${endsTorn(fd) ? '\n' : ''}${JSON.stringify(stamped)}\n`, 'utf8');
      let off = 0;
      // A regular-file write is whole in practice; loop anyway for the short-write case.
      while (off < line.length) off += writeSync(fd, line, off, line.length - off);
      return stamped;
    },
    close() {
      if (fd === null) return;
      try {
        fsyncSync(fd);
      } catch {
        /* best effort */
      }
      closeSync(fd);
      fd = null;
    },
  };
}

/** Append a single event to a log without keeping it open (reapers, one-off writers). */
export function appendSessionEvent(file: string, event: AgentEventInput): AgentEvent {
  const w = openSessionLog(file);
  try {
    return w.append(event);
  } finally {
    w.close();
  }
}

/** True when the file is non-empty and its last byte is not a newline (a torn last line). */
function endsTorn(fd: number): boolean {
  const size = fstatSync(fd).size;
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
}

function openPrivate(file: string): number {
  ensurePrivateDir(path.dirname(file));
  // Read access too: the torn-line check reads the last byte.
  const fd = openSync(file, fsc.O_RDWR | fsc.O_APPEND | fsc.O_CREAT, 0o600);
  try {
    fchmodSync(fd, 0o600);
  } catch {
    /* not ours to chmod (another user's file): leave it */
  }
  return fd;
}

/**
 * The follower's reading position in one log file (follow.ts): the file kept open, its identity,
 * the byte offset read up to, and the decoder holding a torn last line. A file that shrinks
 * (truncated) or is replaced (another identity: inode and birth time, so a reused inode number still
 * counts as new) or deleted and created again is read again from the start.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { NdjsonDecoder, type LogLine } from './reader.js';

const READ_CHUNK = 256 * 1024;

/** Where the lines a cursor reads go. */
export interface CursorSink {
  /** Following has ended: read no further. */
  stopped(): boolean;
  /** Hand one line on; true when reading should stop now. */
  line(l: LogLine): boolean;
  /** The content read so far is gone (truncated, replaced or deleted): reading restarts at 0. */
  startOver(): void;
}

const idOf = (st: { dev: number; ino: number; birthtimeMs: number }): string => `${st.dev}:${st.ino}:${st.birthtimeMs}`;

export class LogCursor {
  /** Byte offset read up to (the decoder may hold the bytes of a torn line before it). */
  offset = 0;
  /** Of the file last read: dev:ino:birthtime. */
  identity: string | undefined;
  readonly decoder = new NdjsonDecoder(0);
  // The file stays open between notifications and is read synchronously: an append of a few
  // bytes then costs one stat and one read on this thread, where an async read costs four trips
  // through the thread pool (open, stat, read, close) and a fresh 256 KiB buffer each time. With
  // an agent streaming 20 pieces a second that was most of a dashboard's CPU while it watched.
  private fd: number | undefined;
  private buf: Buffer | undefined;

  constructor(
    readonly target: string,
    private readonly sink: CursorSink,
  ) {}

  /** Bytes of an unterminated last line held back. */
  get pending(): number {
    return this.decoder.pending;
  }

  /** Read from `offset` on next (a line start). */
  seek(offset: number): void {
    this.offset = offset;
    this.decoder.reset(offset);
  }

  close(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already gone */
    }
    this.fd = undefined;
  }

  /** Read what is new since `offset`: true when it stopped at `budget` bytes with more to read. */
  readNew(budget: number): boolean {
    const fd = this.open();
    if (fd === undefined) return false;
    this.buf ??= Buffer.allocUnsafe(READ_CHUNK);
    let read = 0;
    while (!this.sink.stopped()) {
      if (read >= budget) return true;
      const bytesRead = readSync(fd, this.buf, 0, READ_CHUNK, this.offset);
      if (bytesRead === 0) break;
      this.offset += bytesRead;
      read += bytesRead;
      for (const l of this.decoder.push(this.buf.subarray(0, bytesRead))) {
        if (this.sink.stopped() || this.sink.line(l)) return false;
      }
      // A short read is the end: no extra read to find it (a later append notifies again).
      if (bytesRead < READ_CHUNK) break;
    }
    return false;
  }

  /** The open file at the path, reopened when it was replaced; undefined when the path is gone. */
  private open(): number | undefined {
    let st;
    try {
      st = statSync(this.target);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
      // Gone (deleted or renamed away): whatever appears at the path next is a new file.
      this.close();
      if (this.identity !== undefined) this.startOver();
      this.identity = undefined;
      return undefined;
    }
    if (this.fd === undefined || idOf(st) !== this.identity) {
      this.close();
      this.fd = openSync(this.target, 'r');
      // The identity of what was opened (the path may have been replaced since the stat).
      st = fstatSync(this.fd);
    }
    const id = idOf(st);
    // Replaced or truncated: the content we had is gone.
    if ((this.identity !== undefined && id !== this.identity) || st.size < this.offset) this.startOver();
    this.identity = id;
    return this.fd;
  }

  private startOver(): void {
    this.seek(0);
    this.sink.startOver();
  }
}

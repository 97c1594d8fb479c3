/**
 * The serve end's follow of one agent log (docs/zones.md "Logs by cursor"): bytes from a cursor
 * on, whole lines only, as they are — the other side appends them to its copy, so its copy's size
 * *is* the cursor and a reconnect resumes there. Woken by file notifications (logs/path-watcher.ts),
 * never a timer; `pump()` is also called before a row goes out, so a row never overtakes the log
 * lines written before it (a run's `done` line precedes its row's end: runtime/run-record.ts).
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { PathWatcher } from '../logs/path-watcher.js';

/** Most bytes in one `log` event (the channel's lines stay far below its bound). */
export const CHUNK_BYTES = 1024 * 1024;

export interface TailSink {
  /** Bytes at `at`: UTF-8 text, or base64 (`b64`) when they are not valid UTF-8 (the copy must be byte-exact). */
  chunk(at: number, data: string, b64: boolean): void;
  failed(why: string): void;
}

export class RemoteTail {
  private fd: number | null = null;
  private readonly watcher: PathWatcher;
  private closed = false;

  constructor(
    readonly file: string,
    /** Byte offset of the next line to send (a line start). */
    public at: number,
    private readonly sink: TailSink,
  ) {
    this.watcher = new PathWatcher(file, { change: () => this.pump(), fail: (e) => sink.failed(e.message) });
  }

  start(): void {
    this.watcher.start();
    this.pump();
  }

  /** Send every whole line past the cursor now. */
  pump(): void {
    if (this.closed) return;
    try {
      this.fd ??= openSync(this.file, 'r');
      for (;;) {
        const size = fstatSync(this.fd).size;
        if (size <= this.at) return;
        const want = Math.min(size - this.at, CHUNK_BYTES);
        const buf = Buffer.alloc(want);
        const got = readSync(this.fd, buf, 0, want, this.at);
        const last = buf.lastIndexOf(0x0a, got - 1);
        // A torn last line waits for its newline (a line over CHUNK_BYTES goes out whole, alone).
        if (last === -1) return got === CHUNK_BYTES ? this.sendLong() : undefined;
        this.send(buf.subarray(0, last + 1));
      }
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return; // not there yet: the watcher tells
      this.sink.failed((e as Error).message);
    }
  }

  /** One line longer than a chunk: read to its newline and send it alone. */
  private sendLong(): void {
    const parts: Buffer[] = [];
    let pos = this.at;
    for (;;) {
      const buf = Buffer.alloc(CHUNK_BYTES);
      const got = readSync(this.fd!, buf, 0, CHUNK_BYTES, pos);
      if (got === 0) return; // still torn
      const nl = buf.subarray(0, got).indexOf(0x0a);
      if (nl !== -1) {
        parts.push(buf.subarray(0, nl + 1));
        this.send(Buffer.concat(parts));
        return this.pump();
      }
      parts.push(buf.subarray(0, got));
      pos += got;
    }
  }

  private send(bytes: Buffer): void {
    const text = bytes.toString('utf8');
    // Invalid UTF-8 decodes to U+FFFD: only then is a byte-for-byte compare needed.
    const exact = !text.includes('\uFFFD') || Buffer.from(text, 'utf8').equals(bytes);
    this.sink.chunk(this.at, exact ? text : bytes.toString('base64'), !exact);
    this.at += bytes.length;
  }

  close(): void {
    this.closed = true;
    this.watcher.close();
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

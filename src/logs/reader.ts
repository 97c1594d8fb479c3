/**
 * Reading session logs (`<logs>/<session>.ndjson`, one AgentEvent per line).
 *
 * Tolerant by design: the writer may be mid-line (a torn last line is held back until its newline
 * arrives), and a line that is not a JSON object with a string `type` is skipped. Lines are split
 * on the byte 0x0A, so a multi-byte character cut by a chunk boundary is never decoded in halves.
 * Offsets are byte offsets; `end` of the last complete line is where a follower resumes.
 */
// `fs.createReadStream` is reached through the default export: a named import of it makes node
// load its stream classes when this module loads, which costs every command that reads a tail.
import fs, { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import type { AgentEvent } from '../core/events.js';
import { jsonNeedsNoSanitising } from '../lib/escapes.js';
import { LineDecoder } from '../lib/line-decoder.js';
import { markSafe } from './format.js';

const NL = 0x0a;
/**
 * The largest read readTail makes while it looks for a long line's start (reads double up to this).
 * Kept small: the scratch buffer is fresh memory, and every page of it is a page fault on first
 * use; with 8 MiB steps, `logs -n 50` on a 32 MiB line took a quarter longer (353 vs 280 ms).
 */
const MAX_STEP = 1024 * 1024;
/** Lines from this long on are vouched safe to print from the line as written (TailScan.take). */
const CHECK_LINE_FROM = 64 * 1024;

/** One complete log line that parsed as an event. */
export interface LogLine {
  /** The line as written, without its newline. */
  line: string;
  event: AgentEvent;
  /** Byte offset of the line's first byte. */
  start: number;
  /** Byte offset just past its newline. */
  end: number;
}

/** Parse one line; null for blank lines, non-JSON, and JSON that is not an object with a string `type`. */
export function parseEventLine(line: string): AgentEvent | null {
  const t = line.trim();
  if (t === '' || t[0] !== '{') return null;
  try {
    const v: unknown = JSON.parse(t);
    if (
      v !== null &&
      typeof v === 'object' &&
      !Array.isArray(v) &&
      typeof (v as { type?: unknown }).type === 'string'
    ) {
      return v as AgentEvent;
    }
  } catch {
    /* torn or foreign line: skipped */
  }
  return null;
}

/**
 * Incremental NDJSON decoder of a session log: push byte chunks, get the complete lines that are
 * events back (the splitting, offsets and held torn line are lib/line-decoder's).
 */
export class NdjsonDecoder {
  private readonly lines: LineDecoder;
  /** Lines skipped because they were not events (diagnostics). */
  skipped = 0;

  /** `offset`: byte offset in the file of the first byte that will be pushed. */
  constructor(offset = 0) {
    this.lines = new LineDecoder(Number.POSITIVE_INFINITY, offset);
  }

  /** Bytes of an unterminated line held back. */
  get pending(): number {
    return this.lines.pendingBytes;
  }

  /** Byte offset just past the last complete line returned (where a reader would resume). */
  get position(): number {
    return this.lines.position;
  }

  reset(offset = 0): void {
    this.lines.reset(offset);
  }

  push(chunk: Buffer): LogLine[] {
    const out: LogLine[] = [];
    this.lines.split(chunk, ({ text, start, end }) => {
      const event = parseEventLine(text);
      if (event) out.push({ line: text, event, start, end });
      else if (text.trim() !== '') this.skipped++;
    });
    return out;
  }
}

export interface TailResult {
  /** The last (up to) n events, oldest first. */
  events: AgentEvent[];
  /** Their lines as written, parallel to `events`. */
  lines: string[];
  /** Byte offset just past each line's newline, parallel to `events`. */
  ends: number[];
  /** Byte offset just past the last complete line: follow from here. 0 when the file is missing. */
  offset: number;
  /** File size when read. */
  size: number;
  /** Bytes actually read (for callers and tests that check only the end was read). */
  bytesRead: number;
  /** The file does not exist (yet). */
  missing: boolean;
}

export interface TailOptions {
  /** Read size per step backwards (default 64 KiB). */
  chunkSize?: number;
}

/**
 * The last `n` events of a log, reading backwards from the end in chunks: the cost is the size of
 * those lines (plus one chunk), not the size of the file. A torn last line is left out (its start
 * is the returned `offset`). A missing file is an empty result.
 */
export async function readTail(file: string, n: number, opts: TailOptions = {}): Promise<TailResult> {
  const chunkSize = Math.max(1024, opts.chunkSize ?? 64 * 1024);
  // Synchronous reads: a tail is a few reads of a local file, and each async read is a trip
  // through the thread pool (a 32 MiB last line took ten of them, a third of `logs -n`'s time).
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      return { events: [], lines: [], ends: [], offset: 0, size: 0, bytesRead: 0, missing: true };
    }
    throw e;
  }
  try {
    const scan = new TailScan(fd, n, chunkSize);
    scan.run();
    return scan.result();
  } finally {
    closeSync(fd);
  }
}

/** Read `len` bytes at file offset `at` into the start of `buf`, fewer at the end of the file; the bytes read. */
function readFully(fd: number, buf: Buffer, len: number, at: number): number {
  let got = 0;
  while (got < len) {
    const r = readSync(fd, buf, got, len - got, at + got);
    if (r === 0) break;
    got += r;
  }
  return got;
}

/** readTail's walk backwards through one open file. */
export class TailScan {
  readonly size: number;
  /** The lines found, newest first. */
  readonly found: { line: string; event: AgentEvent; end: number }[] = [];
  /** File offset of the first byte read so far. */
  pos: number;
  bytesRead = 0;
  /** Just past the last newline in the file, once found. */
  end = -1;
  // A line longer than a read is not kept in pieces: once its start is found it is read again
  // whole, into one buffer of its size. The reads that looked for its start all go through one
  // scratch buffer, so a 32 MiB line costs one scan and one read, not a buffer per step and a copy.
  /** File offset just past the newline ending the line whose start is sought. */
  longEnd = -1;
  private scratch = Buffer.allocUnsafe(0);
  private readonly want: number;
  private step: number;

  constructor(
    private readonly fd: number,
    n: number,
    private readonly chunkSize: number,
  ) {
    this.size = fstatSync(fd).size;
    this.pos = this.size;
    this.want = Math.max(0, Math.floor(n));
    this.step = chunkSize;
  }

  run(): void {
    while (this.pos > 0 && (this.found.length < this.want || this.end < 0)) {
      const got = this.readBack();
      this.takeLines(this.scratch, got);
    }
  }

  result(): TailResult {
    const found = [...this.found].reverse();
    return {
      events: found.map((f) => f.event),
      lines: found.map((f) => f.line),
      ends: found.map((f) => f.end),
      offset: Math.max(0, this.end),
      size: this.size,
      bytesRead: this.bytesRead,
      missing: false,
    };
  }

  /** Read the next piece before `pos` into the scratch buffer; the bytes read. */
  private readBack(): number {
    // Inside a long line (or a long torn tail), read bigger steps: few reads for a huge line.
    if (this.longEnd >= 0 || this.end < 0) this.step = Math.min(this.step * 2, MAX_STEP);
    else this.step = this.chunkSize;
    const len = Math.min(this.pos === this.size ? this.chunkSize : this.step, this.pos);
    this.pos -= len;
    if (this.scratch.length < len) this.scratch = Buffer.allocUnsafe(len);
    const got = readFully(this.fd, this.scratch, len, this.pos);
    this.bytesRead += got;
    return got;
  }

  /** Take the lines of `buf` (the `got` bytes read at `pos`), newest first, until enough or one starts earlier. */
  private takeLines(buf: Buffer, got: number): void {
    let stop: number; // index in buf of the newline that ends the current line (got: it goes on past this read)
    let lineEnd: number; // file offset just past that newline
    if (this.end < 0) {
      const last = buf.lastIndexOf(NL, got - 1);
      if (last === -1) return; // still inside a torn last line: not shown, not kept
      this.end = this.pos + last + 1;
      stop = last;
      lineEnd = this.end;
    } else {
      stop = got;
      lineEnd = this.longEnd;
    }
    while (this.found.length < this.want) {
      const prev = stop === 0 ? -1 : buf.lastIndexOf(NL, stop - 1);
      if (prev === -1 && this.pos > 0) {
        // The line starts in an earlier read.
        this.longEnd = lineEnd;
        break;
      }
      if (stop === got && this.longEnd >= 0) {
        // The long line's start is here: read it whole, once.
        this.takeWhole(this.pos + prev + 1);
      } else {
        this.take(buf.subarray(prev + 1, stop), lineEnd);
      }
      if (prev < 0) break;
      stop = prev;
      lineEnd = this.pos + prev + 1;
    }
  }

  /** Read the long line from `start` to `longEnd` in one buffer, and take it. */
  private takeWhole(start: number): void {
    const whole = Buffer.allocUnsafe(this.longEnd - 1 - start);
    const got = readFully(this.fd, whole, whole.length, start);
    this.bytesRead += got;
    this.take(whole.subarray(0, got), this.longEnd);
    this.longEnd = -1;
  }

  private take(bytes: Buffer, lineEnd: number): void {
    // (a trailing CR is dropped without a regex over what may be megabytes)
    const end0 = bytes.length > 0 && bytes[bytes.length - 1] === 0x0d ? bytes.length - 1 : bytes.length;
    const line = bytes.toString('utf8', 0, end0);
    const event = parseEventLine(line);
    if (!event) return;
    // A long line's strings are checked for what the formatter would sanitise in the line, its
    // escapes and a byte search, instead of a regex over every string (a 32 MiB text: ~90 ms).
    if (bytes.length >= CHECK_LINE_FROM && jsonNeedsNoSanitising(line, bytes)) markSafe(event);
    this.found.push({ line, event, end: lineEnd });
  }
}

export interface ReadAllOptions {
  /** Byte offset to start at (default 0). It should be a line start, e.g. a previous `end`. */
  start?: number;
}

/**
 * Every complete event line of a log, streamed (constant memory), oldest first. A missing file
 * yields nothing. The `end` of the last line yielded is where a follower should resume.
 */
export async function* readAll(file: string, opts: ReadAllOptions = {}): AsyncGenerator<LogLine> {
  const start = opts.start ?? 0;
  const decoder = new NdjsonDecoder(start);
  const stream = fs.createReadStream(file, { start, highWaterMark: 256 * 1024 });
  try {
    for await (const chunk of stream) {
      for (const l of decoder.push(chunk as Buffer)) yield l;
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw e;
  } finally {
    stream.destroy();
  }
}

/** All events of a log in memory (small logs, summaries). */
export async function readAllEvents(file: string): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const l of readAll(file)) out.push(l.event);
  return out;
}

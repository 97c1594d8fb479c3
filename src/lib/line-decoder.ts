/**
 * The one newline-delimited stream splitter (NDJSON over sockets and pipes, session log files).
 * Works on bytes: lines are split on 0x0A, so a multi-byte UTF-8 character cut by a chunk boundary
 * is decoded whole, and the optional bound is in bytes. It keeps byte offsets, so a file reader
 * knows where each line starts and where to resume; an unterminated last line is held (copied:
 * the caller may reuse its buffer) until its newline arrives.
 */

const NL = 0x0a;

export interface SplitLine {
  /** The line without its newline (a trailing CR removed). */
  text: string;
  /** Byte offset of its first byte. */
  start: number;
  /** Byte offset just past its newline. */
  end: number;
}

export class LineDecoder {
  private held: Buffer[] = [];
  private heldBytes = 0;
  private overflowed = false;

  /** `offset`: the stream's byte offset of the first byte that will be pushed. */
  constructor(
    readonly maxLineBytes = Number.POSITIVE_INFINITY,
    private offset = 0,
  ) {}

  /**
   * Feed a chunk; returns the complete non-blank lines it finished. `overflow` is set once a line
   * (complete or still unterminated) exceeds the bound; after that the decoder yields nothing more.
   */
  push(chunk: Buffer): { lines: string[]; overflow: boolean } {
    const lines: string[] = [];
    const ok = this.split(chunk, (l) => {
      if (l.text.trim() !== '') lines.push(l.text);
    });
    return { lines, overflow: !ok };
  }

  /** Every complete line in `chunk` (blank ones too), with offsets. False once overflowed. */
  split(chunk: Buffer, each: (line: SplitLine) => void): boolean {
    if (this.overflowed) return false;
    let from = 0;
    for (let nl = chunk.indexOf(NL); nl !== -1; nl = chunk.indexOf(NL, from)) {
      let bytes = chunk.subarray(from, nl);
      if (this.heldBytes + bytes.length > this.maxLineBytes) return this.overflow();
      if (this.heldBytes > 0) {
        bytes = Buffer.concat([...this.held, bytes]);
        this.held = [];
        this.heldBytes = 0;
      }
      const start = this.offset;
      this.offset += bytes.length + 1;
      from = nl + 1;
      let text = bytes.toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      each({ text, start, end: this.offset });
    }
    if (from < chunk.length) {
      const rest = Buffer.from(chunk.subarray(from));
      if (this.heldBytes + rest.length > this.maxLineBytes) return this.overflow();
      this.held.push(rest);
      this.heldBytes += rest.length;
    }
    return true;
  }

  /** Bytes held for the current, unterminated line. */
  get pendingBytes(): number {
    return this.heldBytes;
  }

  /** Byte offset just past the last complete line (where a reader would resume). */
  get position(): number {
    return this.offset;
  }

  /** Drop held bytes and continue at `offset`. */
  reset(offset = 0): void {
    this.held = [];
    this.heldBytes = 0;
    this.overflowed = false;
    this.offset = offset;
  }

  private overflow(): false {
    this.overflowed = true;
    this.held = [];
    this.heldBytes = 0;
    return false;
  }
}

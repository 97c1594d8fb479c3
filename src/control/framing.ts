/**
 * Splits a byte stream into lines, with a bound on the size of one line. Works on bytes so a
 * multi-byte UTF-8 character split across chunks is decoded whole, and so the bound is in bytes.
 */
export class LineDecoder {
  private chunks: Buffer[] = [];
  private size = 0;
  private overflowed = false;

  constructor(readonly maxLineBytes: number) {}

  /**
   * Feed a chunk; returns the complete lines it finished (without the newline, a trailing CR
   * removed, blank lines skipped). `overflow` is set once a line (complete or still unterminated)
   * exceeds the bound; after that the decoder yields nothing more.
   */
  push(chunk: Buffer): { lines: string[]; overflow: boolean } {
    const lines: string[] = [];
    if (this.overflowed) return { lines, overflow: true };
    let start = 0;
    for (let nl = chunk.indexOf(10, start); nl !== -1; nl = chunk.indexOf(10, start)) {
      const piece = chunk.subarray(start, nl);
      start = nl + 1;
      if (this.size + piece.length > this.maxLineBytes) return this.overflow(lines);
      const buf = this.chunks.length === 0 ? piece : Buffer.concat([...this.chunks, piece]);
      this.chunks = [];
      this.size = 0;
      let line = buf.toString('utf8');
      if (line.endsWith('\r')) line = line.slice(0, -1);
      if (line.trim() !== '') lines.push(line);
    }
    const rest = chunk.subarray(start);
    if (rest.length > 0) {
      if (this.size + rest.length > this.maxLineBytes) return this.overflow(lines);
      this.chunks.push(rest);
      this.size += rest.length;
    }
    return { lines, overflow: false };
  }

  /** Bytes held for the current, unterminated line. */
  get pendingBytes(): number {
    return this.size;
  }

  private overflow(lines: string[]): { lines: string[]; overflow: boolean } {
    this.overflowed = true;
    this.chunks = [];
    this.size = 0;
    return { lines, overflow: true };
  }
}

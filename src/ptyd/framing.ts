/**
 * The PTY host's wire format: binary frames `[type: u8][length: u32 BE][payload]` over its unix
 * socket. Terminal bytes (input, output, the screen) travel as they are; the few control messages
 * are JSON. One format both ways; the decoder takes any chunking.
 *
 *   client → host   hello {v, mode: control|view, cols, rows, history?, grid?, who?}   first frame, once
 *                   input <bytes>  resize {cols, rows}  detach
 *                   (a viewer's resize sizes the PTY while no controller is attached)
 *   host → client   welcome {v, sessionId, pid, hostPid, cols, rows, mode, grid?}   or error {code, message, hint}
 *                   screen <ANSI>  (the current screen, sent once, before any output)
 *                   output <bytes>  resized {cols, rows}  exit {exitCode, signal}
 *
 * A viewer that asks for `grid` (and is welcomed with `grid: true`) gets the screen as rows of
 * cells instead of bytes: `rows` frames (GridRows), all rows first, then only the rows that
 * changed, at most one frame per `grid.ms` and none while nothing changes (ptyd/grid-feed.ts). It
 * needs no terminal emulator of its own. A host that predates grids ignores the field and sends
 * bytes; the viewer then parses them itself (pty/viewer.ts). A viewer that also asks for `moves`
 * is told when rows it has moved up or down (the CLI's output scrolled): a `moves` entry to apply
 * before the changed rows, which then are only the rows that are new (a host that predates moves
 * sends every moved row as changed, which the viewer takes alike).
 */
import { KlaudeError } from '../lib/errors.js';

export const PTY_PROTOCOL_VERSION = 1;

export const FRAME = {
  hello: 1,
  input: 2,
  resize: 3,
  detach: 4,
  welcome: 16,
  screen: 17,
  output: 18,
  resized: 19,
  error: 20,
  exit: 21,
  rows: 22,
} as const;
export type FrameType = (typeof FRAME)[keyof typeof FRAME];

const HEADER = 5;
/** No frame is legitimately this big (a screen with history is well under 1 MiB). */
export const MAX_FRAME_BYTES = 16 * 1024 * 1024;

export type AttachMode = 'control' | 'view';
export interface Hello {
  v: number;
  mode: AttachMode;
  cols: number;
  rows: number;
  /** Scrollback lines wanted ahead of the screen (absent: the host's default; a viewer with no scrollback asks for 0). */
  history?: number;
  /** A viewer that wants `rows` frames instead of bytes, at most one per `ms` (and `moves`: see GridRows). */
  grid?: { ms: number; moves?: boolean };
  /** Who this client is, in words (`klaude talk (pid 12)`, `a web page`): a second controller is told who holds the session. */
  who?: string;
}
export interface Welcome {
  v: number;
  sessionId: string;
  /** The CLI's pid (claude). */
  pid: number;
  hostPid: number;
  cols: number;
  rows: number;
  mode: AttachMode;
  /** The host sends `rows` frames (it was asked for a grid and knows how). */
  grid?: boolean;
}
export interface Size {
  cols: number;
  rows: number;
}
export interface WireError {
  code: string;
  message: string;
  hint?: string;
}
export interface ExitInfo {
  exitCode: number | null;
  signal: number | null;
}

/** One row as sent in a `rows` frame: its y, its cells' text, their looks as runs (look, count, look, count…). */
export type GridRow = [y: number, chars: string[], looks: (string | number)[]];

/**
 * Rows top..bottom (inclusive) move by `by`: up when > 0 (row y shows what row y + by showed; the
 * last `by` rows of the range come in blank), down when < 0.
 */
export interface GridMove {
  top: number;
  bottom: number;
  by: number;
}

/** A `rows` frame: the screen's shape and cursor, and its rows (all of them when `full`, else those that changed). */
export interface GridRows {
  cols: number;
  rows: number;
  cursor: { x: number; y: number };
  bufferType: 'normal' | 'alternate';
  full: boolean;
  /** Applied before `changed` (only to a viewer that asked for moves). */
  moves?: GridMove[];
  changed: GridRow[];
}

export interface Frame {
  type: number;
  payload: Buffer;
}

export function encodeFrame(type: FrameType, payload: Buffer | string | object = Buffer.alloc(0)): Buffer {
  const body = Buffer.isBuffer(payload)
    ? payload
    : Buffer.from(typeof payload === 'string' ? payload : JSON.stringify(payload), 'utf8');
  const head = Buffer.allocUnsafe(HEADER);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

export function decodeJson<T>(f: Frame): T {
  try {
    return JSON.parse(f.payload.toString('utf8')) as T;
  } catch {
    throw new KlaudeError('E_PROTOCOL', `malformed PTY frame (type ${f.type})`);
  }
}

/** Splits a byte stream into frames. Throws E_PROTOCOL on a frame over MAX_FRAME_BYTES. */
export class FrameDecoder {
  private chunks: Buffer[] = [];
  private size = 0;
  /** Bytes the next frame needs in total (header + body), once its header is known. */
  private need = HEADER;

  push(chunk: Buffer): Frame[] {
    const out: Frame[] = [];
    this.chunks.push(chunk);
    this.size += chunk.length;
    // Concatenate only when a whole frame (or header) is there: 1-byte reads stay linear.
    while (this.size >= this.need) {
      const buf = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.size);
      this.chunks = [buf];
      const len = buf.readUInt32BE(1);
      if (len > MAX_FRAME_BYTES) {
        this.chunks = [];
        this.size = 0;
        this.need = HEADER;
        throw new KlaudeError('E_PROTOCOL', `PTY frame too large (${len} bytes)`);
      }
      this.need = HEADER + len;
      if (buf.length < this.need) break;
      out.push({ type: buf[0]!, payload: Buffer.from(buf.subarray(HEADER, this.need)) });
      const rest = buf.subarray(this.need);
      this.chunks = rest.length ? [rest] : [];
      this.size = rest.length;
      this.need = HEADER;
    }
    return out;
  }

  /** Bytes of an incomplete frame held. */
  get pending(): number {
    return this.size;
  }
}

/** A terminal size the host accepts (node-pty rejects 0; absurd sizes would cost memory). */
export function validSize(s: Partial<Size> | undefined): Size | null {
  if (!s) return null;
  const ok = (n: unknown, max: number): n is number =>
    typeof n === 'number' && Number.isInteger(n) && n >= 1 && n <= max;
  return ok(s.cols, 1000) && ok(s.rows, 500) ? { cols: s.cols, rows: s.rows } : null;
}

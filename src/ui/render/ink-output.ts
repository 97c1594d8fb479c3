/**
 * The stdout Ink renders to: the real terminal for writes, but the size (and the 'resize'
 * event) come from the dashboard host. Ink's own resize handling repaints with the old tree and
 * clears only when the width shrinks; the host instead clears the screen and re-renders once
 * with the new size (see host.tsx), so Ink must not see the terminal's resize events.
 *
 * Each frame Ink writes whole is written as the lines that changed (frame-diff.ts).
 */
import { EventEmitter } from 'node:events';
import type { TermSize } from '../layout.js';
import { diffFrame, frameLines, type FrameWrite } from './frame-diff.js';

export class InkOutput extends EventEmitter {
  readonly isTTY = true;
  /** Called after Ink wrote a frame (lines: not a lone cursor or mode sequence), with the rows rewritten. */
  afterFrame: ((rows: FrameWrite['rows']) => void) | null = null;
  /** The frame on the screen, line by line; null: unknown (the next frame is written whole). */
  private shown: string[] | null = null;

  constructor(
    private readonly real: NodeJS.WriteStream,
    private readonly size: () => TermSize,
  ) {
    super();
  }

  /** The screen was cleared or written by someone else: write the next frame whole. */
  invalidate(): void {
    this.shown = null;
  }

  get columns(): number {
    return this.size().columns;
  }

  get rows(): number {
    return this.size().rows;
  }

  get writableLength(): number {
    return this.real.writableLength;
  }

  get writable(): boolean {
    return this.real.writable;
  }

  get destroyed(): boolean {
    return this.real.destroyed;
  }

  get writableEnded(): boolean {
    return this.real.writableEnded;
  }

  write(
    chunk: string | Uint8Array,
    encodingOrCb?: BufferEncoding | ((err?: Error | null) => void),
    cb?: (err?: Error | null) => void,
  ): boolean {
    let rows: FrameWrite['rows'] | null = null;
    if (typeof chunk === 'string') {
      const lines = frameLines(chunk);
      if (lines) {
        const w = diffFrame(this.shown, lines);
        this.shown = lines;
        chunk = w.text;
        rows = w.rows;
      } else if (chunk.includes('\n') || chunk.includes('\x1b[2K')) {
        // Something else that draws (Ink clearing its output): whatever is on the screen now is unknown.
        this.shown = null;
        rows = 'all';
      }
    }
    let ok: boolean;
    if (typeof encodingOrCb === 'function') ok = this.real.write(chunk, encodingOrCb);
    else ok = encodingOrCb ? this.real.write(chunk, encodingOrCb, cb) : this.real.write(chunk, cb);
    if (rows) this.afterFrame?.(rows);
    return ok;
  }

  /** Ink asks the stream for colour support through these. */
  hasColors(...args: unknown[]): boolean {
    return typeof this.real.hasColors === 'function' ? this.real.hasColors(...(args as [number])) : false;
  }

  getColorDepth(...args: unknown[]): number {
    return typeof this.real.getColorDepth === 'function' ? this.real.getColorDepth(...(args as [])) : 1;
  }
}

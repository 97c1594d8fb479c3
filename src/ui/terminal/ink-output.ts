/**
 * The stdout Ink renders to: the real terminal for writes, but the size (and the 'resize'
 * event) come from the dashboard host. Ink's own resize handling repaints with the old tree and
 * clears only when the width shrinks; the host instead clears the screen and re-renders once
 * with the new size (see host.tsx), so Ink must not see the terminal's resize events.
 */
import { EventEmitter } from 'node:events';
import type { TermSize } from '../layout.js';

export class InkOutput extends EventEmitter {
  readonly isTTY = true;
  /** Called after Ink wrote a frame (lines: not a lone cursor or mode sequence). */
  afterFrame: (() => void) | null = null;

  constructor(
    private readonly real: NodeJS.WriteStream,
    private readonly size: () => TermSize,
  ) {
    super();
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

  write(chunk: string | Uint8Array, encodingOrCb?: BufferEncoding | ((err?: Error | null) => void), cb?: (err?: Error | null) => void): boolean {
    let ok: boolean;
    if (typeof encodingOrCb === 'function') ok = this.real.write(chunk, encodingOrCb);
    else ok = encodingOrCb ? this.real.write(chunk, encodingOrCb, cb) : this.real.write(chunk, cb);
    if (this.afterFrame && typeof chunk === 'string' && (chunk.includes('\n') || chunk.includes('\x1b[2K'))) this.afterFrame();
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

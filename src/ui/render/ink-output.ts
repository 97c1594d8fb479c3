/**
 * The stdout Ink renders to: the real terminal for writes, but the size (and the 'resize'
 * event) come from the dashboard host. Ink's own resize handling repaints with the old tree and
 * clears only when the width shrinks; the host instead clears the screen and re-renders once
 * with the new size (see host.tsx), so Ink must not see the terminal's resize events.
 *
 * Each frame Ink writes goes to the compositor (compositor.ts), which draws the cells that
 * changed; anything else Ink writes (cursor modes) goes to the terminal after what the
 * compositor has pending. Ink's synchronized-output marks are dropped: the compositor writes its
 * own around each of its writes.
 */
import { EventEmitter } from 'node:events';
import type { TermSize } from '../layout.js';
import type { Compositor } from './compositor.js';
import { frameLines } from './frame-diff.js';

const SYNC_MARKS = new Set(['\x1b[?2026h', '\x1b[?2026l']);

export class InkOutput extends EventEmitter {
  readonly isTTY = true;

  constructor(
    private readonly real: NodeJS.WriteStream,
    private readonly size: () => TermSize,
    private readonly screen: Pick<Compositor, 'frame' | 'flushNow' | 'invalidate'>,
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

  write(
    chunk: string | Uint8Array,
    encodingOrCb?: BufferEncoding | ((err?: Error | null) => void),
    cb?: (err?: Error | null) => void,
  ): boolean {
    const done = typeof encodingOrCb === 'function' ? encodingOrCb : cb;
    if (typeof chunk === 'string') {
      const lines = SYNC_MARKS.has(chunk) ? null : frameLines(chunk);
      if (lines) this.screen.frame(lines);
      if (lines || SYNC_MARKS.has(chunk)) {
        if (done) process.nextTick(done);
        return true;
      }
    }
    this.screen.flushNow();
    // Something else that draws (Ink clearing its output): whatever is on the screen now is unknown.
    if (typeof chunk === 'string' && (chunk.includes('\n') || chunk.includes('\x1b[2K'))) this.screen.invalidate();
    if (typeof encodingOrCb === 'function') return this.real.write(chunk, encodingOrCb);
    return encodingOrCb ? this.real.write(chunk, encodingOrCb, cb) : this.real.write(chunk, cb);
  }

  /** Ink asks the stream for colour support through these. */
  hasColors(...args: unknown[]): boolean {
    return typeof this.real.hasColors === 'function' ? this.real.hasColors(...(args as [number])) : false;
  }

  getColorDepth(...args: unknown[]): number {
    return typeof this.real.getColorDepth === 'function' ? this.real.getColorDepth(...(args as [])) : 1;
  }
}

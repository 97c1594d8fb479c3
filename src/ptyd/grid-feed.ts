/**
 * The host's side of a grid viewer (framing.ts `rows` frames): the session's screen as rows of
 * cells, so the dashboard's preview needs no terminal emulator of its own (one fewer xterm per
 * previewed session, and none loaded in the dashboard).
 *
 * Damage tracking: a copy of each row's raw cells (cells.ts rowStamp) as last sent; a frame holds
 * only the rows whose cells differ. Rows the output scrolled are moved, not sent again, for a
 * viewer that takes moves (grid-moves.ts). Pacing: output schedules one frame within `ms` of the
 * last; more output meanwhile joins it. Nothing is scheduled while the CLI is quiet.
 */
import { readRow, rowStamp, sameStamp, PLAIN } from './cells.js';
import type { GridMove, GridRow, GridRows } from './framing.js';
import { applyMove, findMove } from './grid-moves.js';
import type { HeadlessScreen } from './screen.js';

export class GridFeed {
  /** Per screen row, its raw cells when last sent (null: send it again next time). */
  private sent: (Uint32Array | null)[] = [];
  private shape = '';
  private cursor = '';
  private timer: NodeJS.Timeout | null = null;
  private waiting = false;
  /** Output came while a frame waited for the screen to parse what came before it. */
  private again = false;
  private lastAt = 0;
  private closed = false;

  constructor(
    private readonly screen: HeadlessScreen,
    private readonly ms: number,
    private readonly send: (rows: GridRows) => void,
    /** The viewer takes moves (framing.ts GridMove). */
    private readonly moves = false,
  ) {}

  /** New output (or a resize) went to the screen: a frame follows within `ms`. */
  changed(): void {
    if (this.waiting) this.again = true;
    if (this.timer || this.waiting || this.closed) return;
    const wait = Math.max(0, this.lastAt + this.ms - Date.now());
    this.timer = setTimeout(() => {
      this.timer = null;
      this.waiting = true;
      this.screen.whenParsed(() => {
        this.waiting = false;
        this.flush();
        // That output was written after the frame's parse mark: it gets the next frame.
        if (this.again) {
          this.again = false;
          this.changed();
        }
      });
    }, wait);
  }

  /** Send what changed since the last frame now (call once the screen has parsed what it was given). */
  flush(): void {
    if (this.closed) return;
    this.lastAt = Date.now();
    const term = this.screen.term;
    const buf = term.buffer.active;
    const { cols, rows } = term;
    const shape = `${cols}x${rows}:${buf.type}`;
    const full = shape !== this.shape;
    if (full) {
      this.shape = shape;
      this.sent = [];
    }
    const cursor = `${buf.cursorX},${buf.cursorY}`;
    const stamps = Array.from({ length: rows }, (_, y) => rowStamp(buf, buf.viewportY + y));
    let moved: GridMove | null = null;
    if (!full && this.moves) {
      moved = findMove(this.sent, stamps);
      if (moved) this.sent = applyMove(this.sent, moved, () => null);
    }
    const changed: GridRow[] = [];
    const scratch = buf.getNullCell();
    for (let y = 0; y < rows; y++) {
      const stamp = stamps[y]!;
      if (!full && sameStamp(this.sent[y] ?? null, stamp)) continue;
      this.sent[y] = stamp ? stamp.slice() : null;
      const cells = readRow(buf, buf.viewportY + y, cols, true, scratch);
      changed.push([y, cells.chars, runs(cells.looks)]);
    }
    if (!full && changed.length === 0 && !moved && cursor === this.cursor) return;
    this.cursor = cursor;
    const at = { x: buf.cursorX, y: buf.cursorY };
    this.send({ cols, rows, cursor: at, bufferType: buf.type, full, ...(moved ? { moves: [moved] } : {}), changed });
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}

/** Looks as runs: most rows are one or two looks over the whole width. */
function runs(looks: string[]): (string | number)[] {
  const out: (string | number)[] = [];
  let i = 0;
  while (i < looks.length) {
    const l = looks[i] ?? PLAIN;
    let j = i + 1;
    while (j < looks.length && looks[j] === l) j++;
    out.push(l, j - i);
    i = j;
  }
  return out;
}

/**
 * The selected PTY session's screen, live: a read-only viewer on its PTY host (src/pty/viewer.ts,
 * opened through the function the supervisor passes in), re-read when output arrived and at most
 * once per frame. Selecting another session (or none) stops showing it; a live one's viewer stays
 * open a while for a quick way back (see KEEP), then closes. An idle session sends
 * nothing, so it costs nothing: no timer runs unless output is waiting for its frame.
 *
 * Two ways to draw it. With a painter (`setPaint`, the real dashboard): the screen's rows are not
 * copied into the snapshot; the snapshot changes only when what the pane's frame shows changes
 * (state, size), and each frame calls the painter, which reads the rows that changed from `grid()`
 * (ui/render/preview-painter.ts). Without one (tests rendering the app alone): every change is a
 * new snapshot with all the rows, drawn by Ink (components/preview-pane.tsx).
 *
 * The shown session's PTY is asked to be the pane's size (`fit`): with nobody attached its CLI
 * then draws for the pane, not for the terminal it was started in; while someone is attached the
 * host keeps their size and the pane shows the screen's left part (the pane's status says so).
 */
import type { PtySnapshot, PtyViewer, PtyViewerHandlers, ScreenGrid } from '../pty/viewer.js';
import { Emitter, type Source } from './store.js';

export type PreviewState = 'off' | 'connecting' | 'live' | 'ended' | 'error';

export interface PreviewSnapshot {
  sessionId: string | null;
  state: PreviewState;
  /** The screen as last read (null until connected). */
  screen: PtySnapshot | null;
  /** Bumped on every change. */
  version: number;
  error: string | null;
}

/** Open a read-only viewer on a session's PTY host (`frameMs`: the fastest it need be sent new rows). */
export type OpenViewer = (sessionId: string, h: PtyViewerHandlers, o: { frameMs: number }) => Promise<PtyViewer>;

export interface PtyPreviewOptions {
  open: OpenViewer;
  /** Minimum time between two screen reads (one frame). */
  frameMs: number;
  /** Called after each screen read that was caused by output (bench: time to screen). */
  onScreen?: (s: PtySnapshot) => void;
}

function sameScreen(a: PtySnapshot | null, b: PtySnapshot): boolean {
  if (!a) return false;
  if (a.cols !== b.cols || a.rows !== b.rows || a.bufferType !== b.bufferType) return false;
  if (a.cursor.x !== b.cursor.x || a.cursor.y !== b.cursor.y) return false;
  if (a.ansiLines.length !== b.ansiLines.length) return false;
  for (let i = 0; i < a.ansiLines.length; i++) if (a.ansiLines[i] !== b.ansiLines[i]) return false;
  return true;
}

/** Connection attempts after the first (50 ms … 1.6 s apart: about 3 s in all). */
const RETRIES = 6;
/**
 * Viewers of sessions shown a moment ago stay open, so switching back to one is a redraw, not a
 * new connection (tmux holds every pane's screen the same way): at most KEEP of them, each closed
 * KEEP_MS after it was last shown. A kept viewer of an idle session costs nothing; of a busy one,
 * parsing its output.
 */
const KEEP = 2;
const KEEP_MS = 60_000;

interface Kept {
  viewer: PtyViewer;
  timer: NodeJS.Timeout;
}

/** Smaller than this, a CLI's screen is no use: a pane this small shows part of a bigger one. */
const MIN_FIT = { cols: 20, rows: 6 };

const OFF: PreviewSnapshot = { sessionId: null, state: 'off', screen: null, version: 0, error: null };

export class PtyPreviewFeed extends Emitter implements Source<PreviewSnapshot> {
  private snapshot: PreviewSnapshot = OFF;
  private key: string | null = null;
  private viewer: PtyViewer | null = null;
  /** Bumped on every select: late results of an older open are dropped. */
  private token = 0;
  private scheduled = false;
  private timer: NodeJS.Timeout | undefined;
  private immediate: NodeJS.Immediate | undefined;
  private lastReadAt = 0;
  private closed = false;
  private frameMs: number;
  private paintFrame: (() => void) | null = null;
  private gridView: { viewer: PtyViewer; grid: ScreenGrid } | null = null;
  /** The size the shown session's PTY is asked to be (null: none asked). */
  private fitSize: { cols: number; rows: number } | null = null;
  /** Open viewers of sessions shown before, by select key (oldest first). */
  private readonly kept = new Map<string, Kept>();

  constructor(private readonly opts: PtyPreviewOptions) {
    super();
    this.frameMs = opts.frameMs;
  }

  getSnapshot = (): PreviewSnapshot => this.snapshot;

  /** Follow the dashboard's frame-rate cap (config ui.maxFps). */
  setFrameMs(ms: number): void {
    this.frameMs = ms;
  }

  /** The pane's inside: the shown session's PTY is asked to be this size (null: ask nothing). */
  fit(size: { cols: number; rows: number } | null): void {
    const next = size && { cols: Math.max(MIN_FIT.cols, size.cols), rows: Math.max(MIN_FIT.rows, size.rows) };
    const same = next && this.fitSize && next.cols === this.fitSize.cols && next.rows === this.fitSize.rows;
    if (same || (!next && !this.fitSize)) return;
    this.fitSize = next;
    this.sendFit();
  }

  private sendFit(): void {
    if (this.viewer && this.fitSize) this.viewer.fit?.(this.fitSize);
  }

  /** Draw the screen's rows with this (called once per frame with new output); null: through the snapshot. */
  setPaint(fn: (() => void) | null): void {
    this.paintFrame = fn;
  }

  /** The shown screen, row by row (null: none connected yet, or the viewer can't). */
  grid(): ScreenGrid | null {
    const v = this.viewer;
    // A session that ended keeps showing its last screen (its viewer's terminal stays readable).
    if (!v) return this.gridView?.grid ?? null;
    if (!v.grid) return null;
    if (this.gridView?.viewer !== v) this.gridView = { viewer: v, grid: v.grid() };
    return this.gridView.grid;
  }

  /** Watch this session's PTY screen (`run`, its 'pty' row id, tells a restarted session apart); null stops watching. */
  select(sessionId: string | null, run: number | null): void {
    const key = sessionId && run ? `${sessionId}:${run}` : null;
    if (key === this.key || this.closed) return;
    const previous = this.key;
    this.key = key;
    const token = ++this.token;
    this.stopViewer(previous);
    if (!sessionId || !key) {
      this.set({ sessionId: null, state: 'off', screen: null, error: null });
      return;
    }
    const kept = this.kept.get(key);
    if (kept) {
      this.kept.delete(key);
      clearTimeout(kept.timer);
      this.viewer = kept.viewer;
      this.sendFit();
      this.set({ sessionId, state: 'live', screen: null, error: null });
      this.read();
      return;
    }
    this.set({ sessionId, state: 'connecting', screen: null, error: null });
    this.connect(sessionId, token, 0);
  }

  /** Keep the viewer shown until now open for a while (see KEEP). */
  private keep(key: string, viewer: PtyViewer): void {
    const timer = setTimeout(() => this.forget(key, viewer), KEEP_MS);
    timer.unref();
    this.kept.set(key, { viewer, timer });
    for (const [k, v] of this.kept) {
      if (this.kept.size <= KEEP) break;
      this.forget(k, v.viewer);
    }
  }

  private forget(key: string, viewer: PtyViewer): void {
    const k = this.kept.get(key);
    if (!k || k.viewer !== viewer) return;
    this.kept.delete(key);
    clearTimeout(k.timer);
    viewer.close();
  }

  /**
   * A host records its process row a moment before its socket listens: a refused first connection
   * is tried again a few times (backing off; a timer runs only while connecting fails).
   */
  private connect(sessionId: string, token: number, attempt: number): void {
    const key = this.key!;
    // Before the open resolves: is this still the selected session's attempt; after: is it shown.
    let opened: PtyViewer | null = null;
    const current = (): boolean => !this.closed && (opened ? this.viewer === opened : token === this.token);
    const gone = (): void => {
      if (opened) this.forget(key, opened);
    };
    const handlers: PtyViewerHandlers = {
      onUpdate: () => {
        if (current()) this.schedule();
      },
      onExit: () => {
        if (current()) this.set({ state: 'ended' });
        else gone();
      },
      onClose: () => {
        if (!current()) return gone();
        this.viewer = null;
        if (this.snapshot.state !== 'ended') this.set({ state: 'ended' });
      },
    };
    this.opts.open(sessionId, handlers, { frameMs: this.frameMs }).then(
      (v) => {
        if (!current()) {
          v.close();
          return;
        }
        opened = v;
        this.viewer = v;
        this.sendFit();
        this.read();
      },
      (err: unknown) => {
        if (!current()) return;
        if (attempt < RETRIES) {
          this.timer = setTimeout(
            () => {
              this.timer = undefined;
              if (current()) this.connect(sessionId, token, attempt + 1);
            },
            50 * 2 ** attempt,
          );
          return;
        }
        this.set({ state: 'error', error: (err as Error)?.message ?? String(err) });
      },
    );
  }

  close(): void {
    this.closed = true;
    this.token++;
    this.stopViewer(null);
    for (const [k, v] of [...this.kept]) this.forget(k, v.viewer);
  }

  /** Stop showing the current viewer: kept open for a quick way back when it is live (`key`), else closed. */
  private stopViewer(key: string | null): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.immediate) clearImmediate(this.immediate);
    this.timer = undefined;
    this.immediate = undefined;
    this.scheduled = false;
    const v = this.viewer;
    this.viewer = null;
    this.gridView = null;
    if (v && key && !this.closed && this.snapshot.state === 'live') this.keep(key, v);
    else v?.close();
  }

  /** New output: read the screen within a frame (a burst of output costs one read). */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.lastReadAt + this.frameMs - Date.now();
    const run = (): void => {
      this.timer = undefined;
      this.immediate = undefined;
      this.scheduled = false;
      this.read();
      if (this.snapshot.screen) this.opts.onScreen?.(this.snapshot.screen);
    };
    if (wait <= 0) this.immediate = setImmediate(run);
    else this.timer = setTimeout(run, wait);
  }

  private read(): void {
    if (!this.viewer || this.closed) return;
    this.lastReadAt = Date.now();
    const state = this.snapshot.state === 'ended' ? 'ended' : 'live';
    const grid = this.paintFrame ? this.grid() : null;
    if (grid && this.paintFrame) {
      // The frame around the pane changes only with the state or the screen's size.
      const frame: PtySnapshot = {
        cols: grid.cols,
        rows: grid.rows,
        lines: [],
        ansiLines: [],
        cursor: { x: 0, y: 0 },
        bufferType: grid.bufferType,
      };
      if (state !== this.snapshot.state || !sameScreen(this.snapshot.screen, frame)) this.set({ state, screen: frame });
      this.paintFrame();
      return;
    }
    const screen = this.viewer.snapshot();
    // Output that changed nothing visible (a CLI re-sending modes or its title) renders nothing.
    if (state === this.snapshot.state && sameScreen(this.snapshot.screen, screen)) return;
    this.set({ state, screen });
  }

  private set(patch: Partial<PreviewSnapshot>): void {
    this.snapshot = { ...this.snapshot, ...patch, version: this.snapshot.version + 1 };
    this.emit();
  }
}

/**
 * The dashboard on a real terminal: mounts the Ink app in the alternate screen and owns the one
 * suspend/resume path used to hand the terminal to claude.
 *
 *   show()     enter the alternate screen (cursor hidden, stdin read again), mount Ink
 *   suspend()  unmount Ink (its input hook lets go: raw mode off, listener removed), leave the
 *              alternate screen with the cursor shown, stop reading stdin
 *   resume()   = show(): a fresh mount on a cleared screen is a full repaint; all state lives in
 *              the stores, so selection, folds, filter and scroll are as they were
 *
 * Resizes: clear the screen, then re-render once with the new size (the frame is always one row
 * shorter than the terminal, so Ink never takes its clear-everything path). What reaches the
 * terminal is the cells that changed (render/compositor.ts); after a clear the next frame goes out
 * whole.
 */
import { render, type Instance } from 'ink';
import { writeFileSync } from 'node:fs';
import { App } from './app.js';
import type { DashboardDeps } from './deps.js';
import type { TermSize } from './layout.js';
import { Emitter, type Source } from '../feeds/store.js';
import { Clock } from '../feeds/clock.js';
import { ClockPainter } from './render/clock-painter.js';
import { Compositor } from './render/compositor.js';
import { InkOutput } from './render/ink-output.js';
import { LogPainter } from './render/log-painter.js';
import type { LogSnapshot } from '../feeds/log-feed.js';
import type { LogSource } from './deps.js';
import { PreviewPainter } from './render/preview-painter.js';
import { TerminalScreen } from './render/screen.js';
import { uiStats } from './render/ui-stats.js';

export class SizeStore extends Emitter implements Source<TermSize> {
  constructor(private size: TermSize) {
    super();
  }

  getSnapshot = (): TermSize => this.size;

  set(next: TermSize): boolean {
    if (next.columns === this.size.columns && next.rows === this.size.rows) return false;
    this.size = next;
    this.emit();
    return true;
  }
}

export interface HostOptions {
  deps: Omit<DashboardDeps, 'size'>;
  stdout: NodeJS.WriteStream;
  stdin: NodeJS.ReadStream;
  stderr: NodeJS.WriteStream;
  maxFps: number;
  /** Ink or React failed: the caller restores the terminal and ends. */
  onCrash: (err: unknown) => void;
  /** Called after every frame Ink writes (bench, diagnostics). */
  onRender?: () => void;
  /** Where to write what was drawn (render/ui-stats.ts) when the dashboard closes (bench). */
  statsFile?: string;
}

/** A preview feed that can hand its rows to a painter (feeds/pty-preview.ts). */
interface PaintableFeed {
  getSnapshot(): { sessionId: string | null };
  grid(): import('../pty/viewer.js').ScreenGrid | null;
  setPaint(fn: (() => void) | null): void;
}

function paintable(x: unknown): x is PaintableFeed {
  const f = x as PaintableFeed | undefined;
  return typeof f?.grid === 'function' && typeof f.setPaint === 'function' && typeof f.getSnapshot === 'function';
}

export class DashboardHost {
  readonly size: SizeStore;
  readonly screen: TerminalScreen;
  private instance: Instance | null = null;
  private closed = false;
  private maxFps: number;
  private crashHandler: (err: unknown) => void;
  private readonly out: InkOutput;
  private readonly deps: DashboardDeps;
  /** What the terminal shows, and the one writer of the dashboard's cells. */
  readonly compositor: Compositor;
  /** Draws the preview pane's inside (the session's screen) over Ink's frame. */
  readonly painter: PreviewPainter | null = null;
  /** Draws the followed log's rows over Ink's frame. */
  readonly logPainter: LogPainter;
  /** Draws the running rows' clocks as they tick, without an Ink frame. */
  readonly clockPainter: ClockPainter;

  constructor(private readonly opts: HostOptions) {
    this.size = new SizeStore(this.terminalSize());
    this.screen = new TerminalScreen(opts.stdout, opts.stdin);
    this.compositor = new Compositor(
      (s) => opts.stdout.write(s),
      () => this.size.getSnapshot().columns,
    );
    this.out = new InkOutput(opts.stdout, this.size.getSnapshot, this.compositor);
    const feed = opts.deps.preview;
    if (paintable(feed)) {
      const painter = new PreviewPainter(this.compositor, (id) =>
        feed.getSnapshot().sessionId === id ? feed.grid() : null,
      );
      feed.setPaint(() => painter.paint());
      this.compositor.addOverlay(painter);
      this.painter = painter;
    }
    this.logPainter = new LogPainter(this.compositor);
    this.compositor.addOverlay(this.logPainter);
    const clock = opts.deps.clock ?? new Clock();
    this.clockPainter = new ClockPainter(this.compositor, clock, opts.deps.now ?? Date.now);
    // (first: the tree's clocks are under anything drawn over the right pane)
    this.compositor.addOverlay(this.clockPainter, true);
    this.deps = {
      ...opts.deps,
      clock,
      clockPaint: this.clockPainter,
      log: gatedLog(opts.deps.log, this.logPainter),
      logPaint: this.logPainter,
      size: this.size,
      ...(this.painter ? { previewPaint: this.painter } : {}),
    };
    this.maxFps = opts.maxFps;
    this.crashHandler = opts.onCrash;
    opts.stdout.on('resize', this.onResize);
  }

  get mounted(): boolean {
    return this.instance !== null;
  }

  /** Take the terminal: alternate screen, then the first frame. */
  show(): void {
    if (this.instance || this.closed) return;
    this.size.set(this.terminalSize());
    this.screen.enter();
    this.compositor.invalidate();
    const instance = render(<App deps={this.deps} />, {
      stdout: this.out as unknown as NodeJS.WriteStream,
      stdin: this.opts.stdin,
      stderr: this.opts.stderr,
      exitOnCtrlC: false,
      patchConsole: false,
      maxFps: this.maxFps,
      onRender: () => {
        uiStats.inkFrames++;
        this.clockPainter.computed();
        this.opts.onRender?.();
      },
    });
    this.instance = instance;
    instance.waitUntilExit().catch((err: unknown) => {
      if (this.instance === instance) this.instance = null;
      this.crashHandler(err);
    });
  }

  /** Give the terminal away (to claude): nothing of the dashboard reads or writes it until show(). */
  suspend(): void {
    this.unmount();
    this.screen.leave();
  }

  resume(): void {
    this.show();
  }

  /** Who handles a render failure from now on. */
  onCrash(fn: (err: unknown) => void): void {
    this.crashHandler = fn;
  }

  /** The frame-rate cap (config ui.maxFps); Ink takes it at mount, so a change remounts. */
  setMaxFps(fps: number): void {
    if (fps === this.maxFps) return;
    this.maxFps = fps;
    this.redraw();
  }

  /** Clear and paint everything again (Ctrl-L). */
  redraw(): void {
    if (!this.instance) return;
    this.unmount();
    this.screen.clear();
    this.show();
  }

  /** Leave for good: unmount, normal screen, cursor shown, stdin released. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.opts.stdout.off('resize', this.onResize);
    this.unmount();
    this.screen.leave();
    if (this.opts.statsFile) writeFileSync(this.opts.statsFile, `${JSON.stringify(uiStats)}\n`, { mode: 0o600 });
  }

  private unmount(): void {
    const i = this.instance;
    if (!i) return;
    this.instance = null;
    i.unmount();
    this.painter?.place(null);
    // The screen is given away (or cleared next): nothing pending is drawn.
    this.compositor.invalidate();
  }

  private terminalSize(): TermSize {
    return { columns: this.opts.stdout.columns || 80, rows: this.opts.stdout.rows || 24 };
  }

  private onResize = (): void => {
    const next = this.terminalSize();
    const cur = this.size.getSnapshot();
    if (next.columns === cur.columns && next.rows === cur.rows) return;
    // The terminal has already reflowed (or cut) the old frame: start from a clean screen.
    if (this.instance) this.screen.clear();
    this.compositor.invalidate();
    this.size.set(next);
  };
}

/** What React shows of the log apart from its lines (the painter draws those). */
const sameFrame = (a: LogSnapshot, b: LogSnapshot): boolean =>
  a.sessionId === b.sessionId &&
  a.file === b.file &&
  a.error === b.error &&
  a.loaded === b.loaded &&
  a.missing === b.missing;

/**
 * The log as React reads it: while the painter draws the followed log, a change that only adds
 * lines goes to the painter and not to React (a React render is a whole Ink frame; the painter's
 * is the rows that moved). React reads the log as it is whenever it renders for another reason.
 */
function gatedLog(feed: LogSource, painter: LogPainter): LogSource {
  let seen = feed.getSnapshot();
  return {
    select: (id, file) => feed.select(id, file),
    getSnapshot: () => (seen = feed.getSnapshot()),
    subscribe: (listener) =>
      feed.subscribe(() => {
        const next = feed.getSnapshot();
        painter.changed();
        if (painter.region?.sessionId !== next.sessionId || !sameFrame(seen, next)) listener();
      }),
  };
}

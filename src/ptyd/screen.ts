/**
 * A PTY session's screen: an @xterm/headless terminal fed with everything the CLI writes, plus the
 * few bits of terminal state xterm does not expose that a re-attach must replay (cursor visibility,
 * mouse encoding, scroll region, title). It answers the CLI's terminal queries (device attributes,
 * cursor position) only when asked to, i.e. while no real terminal is attached to answer them.
 * Cost when idle: nothing (xterm has no timers; it parses on write).
 */
import xterm from '@xterm/headless';
import { renderScreen, renderLines, type RenderState } from './render.js';

const { Terminal } = xterm;
export type XTerminal = InstanceType<typeof Terminal>;

/** DEC private modes replayed on attach besides those in `term.modes` (see render.ts). */
const TRACKED_MODES = new Set([25, 1004, 1005, 1006, 1015]);

export interface ScreenOptions {
  cols: number;
  rows: number;
  /** Lines kept above the screen (default 1000). */
  scrollback?: number;
}

export class HeadlessScreen {
  readonly term: XTerminal;
  private readonly state: RenderState = { decModes: new Map(), scrollRegion: null, title: null };
  private replies: ((data: string) => void) | null = null;

  constructor(opts: ScreenOptions) {
    this.term = new Terminal({
      cols: opts.cols,
      rows: opts.rows,
      scrollback: opts.scrollback ?? 1000,
      allowProposedApi: true,
      logLevel: 'off',
    });
    const t = this.term;
    const onDecMode = (set: boolean) => (params: (number | number[])[]) => {
      for (const p of params) if (typeof p === 'number' && TRACKED_MODES.has(p)) this.state.decModes.set(p, set);
      return false; // xterm handles it too
    };
    t.parser.registerCsiHandler({ prefix: '?', final: 'h' }, onDecMode(true));
    t.parser.registerCsiHandler({ prefix: '?', final: 'l' }, onDecMode(false));
    t.parser.registerCsiHandler({ final: 'r' }, (params) => {
      const [top, bottom] = params.map((p) => (typeof p === 'number' ? p : 0));
      this.state.scrollRegion = top || bottom ? { top: top || 1, bottom: bottom || 0 } : null;
      return false;
    });
    t.onTitleChange((title) => {
      this.state.title = title;
    });
    t.onData((d) => this.replies?.(d));
  }

  get cols(): number {
    return this.term.cols;
  }

  get rows(): number {
    return this.term.rows;
  }

  write(data: string | Uint8Array): void {
    this.term.write(data);
  }

  /** `cb` runs once everything written so far is parsed into the buffer. */
  whenParsed(cb: () => void): void {
    this.term.write('', cb);
  }

  parsed(): Promise<void> {
    return new Promise((resolve) => this.whenParsed(resolve));
  }

  resize(cols: number, rows: number): void {
    if (cols === this.term.cols && rows === this.term.rows) return;
    this.term.resize(cols, rows);
    // xterm keeps the region across a resize only when it still fits; we replay the one it has.
    if (this.state.scrollRegion && this.state.scrollRegion.bottom > rows) this.state.scrollRegion = null;
  }

  /** Answer the CLI's terminal queries with `send` (null: don't answer; a real terminal does). */
  answerQueries(send: ((data: string) => void) | null): void {
    this.replies = send;
  }

  /** ANSI that paints this screen on a terminal of the same size (call after `parsed()`). */
  render(opts: { history?: number } = {}): string {
    return renderScreen(this.term, this.state, opts);
  }

  /** The visible lines, plain (`ansi: false`) or with colours and attributes as SGR (`ansi: true`). */
  lines(opts: { ansi?: boolean } = {}): string[] {
    return renderLines(this.term, opts.ansi ?? false);
  }

  dispose(): void {
    this.replies = null;
    this.term.dispose();
  }
}

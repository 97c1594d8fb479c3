/**
 * Read-only access to live PTY sessions, for the dashboard's preview pane (and anything else that
 * wants to watch without attaching). No node-pty here: a viewer is a socket client with its own
 * headless terminal, fed with the host's screen and then its output.
 *
 *   const sessions = listPtySessions(db, projectHash);          // which sessions run in a PTY
 *   const v = await openPtyViewer(home, projectHash, id, {
 *     onUpdate: () => schedule(render),                           // at most once per parsed write
 *     onExit: (e) => …,                                           // the CLI exited (then closed)
 *   });
 *   v.snapshot()   // { cols, rows, lines (plain), ansiLines (SGR), cursor, bufferType }
 *   v.close()
 *
 * `onUpdate` fires only when output arrived (idle sessions cost nothing); cap the render rate on
 * the caller's side (the dashboard's frame loop).
 *
 * With `gridMs`, the host sends the screen's changed rows as cells, at most one frame per
 * `gridMs` (ptyd/grid-feed.ts), and the viewer keeps them (pty/remote-grid.ts): no terminal
 * emulator runs on this side. A host too old for that sends bytes; then, and only then, the
 * viewer loads a headless terminal (@xterm/headless) and parses them itself.
 */
import type { Db } from '../db/client.js';
import { openProcessesOfProject } from '../db/repos/processes.js';
import { liveRows } from '../lib/process.js';
import { readRow, rowStamp, rowText } from '../ptyd/cells.js';
import { connectPty } from './host-client.js';
import type { ExitInfo, GridRows, Size, Welcome } from '../ptyd/framing.js';
import { ptySocketPath } from '../ptyd/socket-path.js';
import { RemoteGrid } from './remote-grid.js';
import type { HeadlessScreen } from '../ptyd/screen.js';
import type { PtySnapshot, ScreenGrid } from './screen-grid.js';

export type { PtySnapshot, ScreenGrid };

export interface PtySessionInfo {
  sessionId: string;
  /** The PTY server's pid (shared by every hosted session: stop one with pty/launch.ts stopPtySession). */
  hostPid: number;
  socketPath: string;
  startedAt: number;
}

/** Sessions of the project that run in a live PTY host right now. */
export function listPtySessions(
  db: Db,
  projectHash: string,
  home: string,
  env: NodeJS.ProcessEnv = process.env,
): PtySessionInfo[] {
  return liveRows(openProcessesOfProject(db, projectHash, 'pty')).map((r) => ({
    sessionId: r.klaudeSessionId,
    hostPid: r.pid,
    socketPath: ptySocketPath(home, projectHash, r.klaudeSessionId, env),
    startedAt: r.startedAt,
  }));
}

export interface PtyViewerHandlers {
  /** The screen changed (called after the new output is parsed; coalesced per write batch). */
  onUpdate?(): void;
  /** The CLI exited. */
  onExit?(e: ExitInfo): void;
  /** The connection ended (after onExit, or because the host went away / close() was called). */
  onClose?(): void;
}

export interface PtyViewer {
  /** The CLI's pid. */
  readonly pid: number;
  snapshot(): PtySnapshot;
  /** Row-at-a-time access for drawing only what changed (absent: use `snapshot()`). */
  grid?(): ScreenGrid;
  /**
   * Ask for the PTY to be this size (the pane it is shown in): the host makes it so while nobody
   * is attached (ptyd/host.ts); a host that predates this ignores it.
   */
  fit?(size: Size): void;
  close(): void;
}

export interface PtyViewerOptions {
  /** Ask the host for rows of cells, at most one frame per this many ms (absent: bytes, parsed here). */
  gridMs?: number;
}

/**
 * What a viewer shows and how it gets there: the host's rows as they come (a grid host), or a
 * headless terminal loaded on the welcome and fed the host's bytes (an older host).
 */
class ViewerScreen {
  remote: RemoteGrid | null = null;
  screen: HeadlessScreen | null = null;
  closed = false;
  /** Bytes (and resizes) that came before the headless terminal was loaded, in order. */
  private early: (Buffer | Size)[] | null = null;
  /** The host's screen frame arrived before the headless terminal did. */
  private screenEarly = false;
  private pending = false;
  private shown: () => void = () => undefined;
  /** Resolves once the session's current screen is in place (or the connection closed). */
  readonly firstScreen = new Promise<void>((resolve) => (this.shown = resolve));

  constructor(private readonly h: PtyViewerHandlers) {}

  welcome(w: Welcome): void {
    if (w.grid) this.remote = new RemoteGrid(w.cols, w.rows);
    else this.emulate(w);
  }

  rows(rows: GridRows): void {
    if (!this.remote || this.closed) return;
    this.remote.apply(rows);
    this.shown();
    this.h.onUpdate?.();
  }

  /** Output bytes or a resize, for the headless terminal (held until it is loaded). */
  take(x: Buffer | Size): void {
    if (this.closed) return;
    const sc = this.screen;
    if (!sc) {
      this.early?.push(x);
      return;
    }
    if (Buffer.isBuffer(x)) sc.write(x);
    else sc.whenParsed(() => sc.resize(x.cols, x.rows));
    this.changed();
  }

  /** The host's current screen: shown once parsed (the viewer resolves then). */
  takeScreen(ansi: Buffer): void {
    this.take(ansi);
    if (this.screen) this.screen.whenParsed(this.shown);
    else this.screenEarly = true;
  }

  close(): void {
    this.closed = true;
    this.shown();
    this.h.onClose?.();
  }

  snapshot(blank: RemoteGrid): PtySnapshot {
    const sc = this.screen;
    if (!sc) return (this.remote ?? blank).snapshot();
    const buf = sc.term.buffer.active;
    return {
      cols: sc.cols,
      rows: sc.rows,
      lines: sc.lines(),
      ansiLines: sc.lines({ ansi: true }),
      cursor: { x: buf.cursorX, y: buf.cursorY },
      bufferType: buf.type,
    };
  }

  grid(blank: RemoteGrid): ScreenGrid {
    return this.screen ? screenGrid(this.screen) : (this.remote ?? blank);
  }

  /** Tell the caller once the output written so far is parsed (one call per batch of writes). */
  private changed(): void {
    const sc = this.screen;
    if (this.pending || !sc) return;
    this.pending = true;
    sc.whenParsed(() => {
      this.pending = false;
      if (!this.closed) this.h.onUpdate?.();
    });
  }

  /** A host that sends bytes: load a headless terminal, then replay what came meanwhile. */
  private emulate(size: Size): void {
    this.early = [];
    void import('../ptyd/screen.js').then(({ HeadlessScreen: Screen }) => {
      // No scrollback here: the host's history would be parsed only to be dropped.
      const sc = new Screen({ cols: size.cols, rows: size.rows, scrollback: 0 });
      this.screen = sc;
      const backlog = this.early ?? [];
      this.early = null;
      for (const x of backlog) this.take(x);
      if (this.screenEarly) sc.whenParsed(this.shown);
    });
  }
}

/** Connect read-only; resolves once the session's current screen is in the viewer. */
export async function openPtyViewer(
  home: string,
  projectHash: string,
  sessionId: string,
  h: PtyViewerHandlers = {},
  env: NodeJS.ProcessEnv = process.env,
  opts: PtyViewerOptions = {},
): Promise<PtyViewer> {
  const view = new ViewerScreen(h);
  const conn = await connectPty(
    ptySocketPath(home, projectHash, sessionId, env),
    { mode: 'view', history: 0, ...(opts.gridMs !== undefined ? { grid: { ms: opts.gridMs, moves: true } } : {}) },
    {
      onWelcome: (w) => view.welcome(w),
      onRows: (rows) => view.rows(rows),
      onScreen: (ansi) => view.takeScreen(ansi),
      onOutput: (data) => view.take(data),
      onResized: (s) => view.take(s),
      onExit: (e) => h.onExit?.(e),
      onClose: () => view.close(),
    },
  );
  // Resolve with the session's screen in place, so the first snapshot() already shows it.
  await view.firstScreen;
  const blank = new RemoteGrid(conn.welcome.cols, conn.welcome.rows);
  return {
    pid: conn.welcome.pid,
    snapshot: () => view.snapshot(blank),
    grid: () => view.grid(blank),
    fit: (size) => {
      if (!view.closed) conn.resize(size);
    },
    close(): void {
      if (view.closed) return;
      conn.detach();
    },
  };
}

const activeBuffer = (sc: HeadlessScreen) => sc.term.buffer.active;

/** Row-at-a-time access to a headless screen (the rows of whichever buffer is active). */
export function screenGrid(sc: HeadlessScreen): ScreenGrid {
  const buf = (): ReturnType<typeof activeBuffer> => activeBuffer(sc);
  // One reusable cell: reading a row allocates no cell objects.
  const scratch = buf().getNullCell();
  return {
    get cols() {
      return sc.cols;
    },
    get rows() {
      return sc.rows;
    },
    get cursor() {
      const b = buf();
      return { x: b.cursorX, y: b.cursorY };
    },
    get bufferType() {
      return buf().type;
    },
    stamp: (y) => rowStamp(buf(), buf().viewportY + y),
    text: (y) => rowText(buf(), buf().viewportY + y),
    cells: (y, width, colour) => readRow(buf(), buf().viewportY + y, width, colour, scratch),
  };
}

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
 * `gridMs` (pty/grid-feed.ts), and the viewer keeps them (pty/remote-grid.ts): no terminal
 * emulator runs on this side. A host too old for that sends bytes; then, and only then, the
 * viewer loads a headless terminal (@xterm/headless) and parses them itself.
 */
import type { Db } from '../db/client.js';
import { openProcessesOfProject } from '../db/repos/processes.js';
import { isAlive } from '../lib/process.js';
import { readRow, rowStamp, rowText, type RowCells } from '../ptyd/cells.js';
import { connectPty, type PtyConnection } from './host-client.js';
import type { ExitInfo, Size } from '../ptyd/framing.js';
import { ptySocketPath } from '../ptyd/socket-path.js';
import { RemoteGrid } from './remote-grid.js';
import type { HeadlessScreen } from '../ptyd/screen.js';

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
  return openProcessesOfProject(db, projectHash, 'pty')
    .filter((r) => isAlive(r.pid))
    .map((r) => ({
      sessionId: r.klaudeSessionId,
      hostPid: r.pid,
      socketPath: ptySocketPath(home, projectHash, r.klaudeSessionId, env),
      startedAt: r.startedAt,
    }));
}

export interface PtySnapshot {
  cols: number;
  rows: number;
  /** Visible lines, plain text, trailing blanks trimmed. */
  lines: string[];
  /** The same lines with colours/attributes as SGR sequences (each styled line ends in a reset). */
  ansiLines: string[];
  cursor: { x: number; y: number };
  bufferType: 'normal' | 'alternate';
}

/**
 * The live screen, read a row at a time without copying it all (the dashboard's preview reads only
 * the rows it shows, and only those that changed: see `stamp`). Valid until the viewer closes;
 * rows are screen rows (0 = top).
 */
export interface ScreenGrid {
  readonly cols: number;
  readonly rows: number;
  readonly cursor: { x: number; y: number };
  readonly bufferType: 'normal' | 'alternate';
  /** The row's raw cells (unchanged array ⇒ unchanged row; copy to keep), or null: read it again. */
  stamp(y: number): Uint32Array | null;
  /** The row as plain text, trailing blanks dropped. */
  text(y: number): string;
  /** The row's first `width` cells. */
  cells(y: number, width: number, colour: boolean): RowCells;
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
  close(): void;
}

export interface PtyViewerOptions {
  /** Ask the host for rows of cells, at most one frame per this many ms (absent: bytes, parsed here). */
  gridMs?: number;
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
  let remote: RemoteGrid | null = null;
  let screen: HeadlessScreen | null = null;
  /** Bytes (and resizes) that came before the headless terminal was loaded, in order. */
  let early: (Buffer | Size)[] | null = null;
  /** The host's screen frame arrived before the headless terminal did. */
  let screenEarly = false;
  let pending = false;
  let closed = false;
  let shown: () => void = () => undefined;
  const firstScreen = new Promise<void>((resolve) => (shown = resolve));
  const changed = (): void => {
    if (pending || !screen) return;
    pending = true;
    screen.whenParsed(() => {
      pending = false;
      if (!closed) h.onUpdate?.();
    });
  };
  const take = (x: Buffer | Size): void => {
    if (closed) return;
    if (!screen) {
      early?.push(x);
      return;
    }
    if (Buffer.isBuffer(x)) screen.write(x);
    else {
      const sc = screen;
      sc.whenParsed(() => sc.resize(x.cols, x.rows));
    }
    changed();
  };
  /** A host that sends bytes: load a headless terminal, then replay what came meanwhile. */
  const emulate = (size: Size): void => {
    early = [];
    void import('../ptyd/screen.js').then(({ HeadlessScreen: Screen }) => {
      // No scrollback here: the host's history would be parsed only to be dropped.
      screen = new Screen({ cols: size.cols, rows: size.rows, scrollback: 0 });
      const backlog = early ?? [];
      early = null;
      for (const x of backlog) take(x);
      if (screenEarly) screen.whenParsed(shown);
    });
  };
  /** The host's current screen: shown once parsed (the viewer resolves then). */
  const takeScreen = (ansi: Buffer): void => {
    take(ansi);
    if (screen) screen.whenParsed(shown);
    else screenEarly = true;
  };
  const conn: PtyConnection = await connectPty(
    ptySocketPath(home, projectHash, sessionId, env),
    { mode: 'view', history: 0, ...(opts.gridMs !== undefined ? { grid: { ms: opts.gridMs } } : {}) },
    {
      onWelcome: (w) => {
        if (w.grid) remote = new RemoteGrid(w.cols, w.rows);
        else emulate(w);
      },
      onRows: (rows) => {
        if (!remote || closed) return;
        remote.apply(rows);
        shown();
        h.onUpdate?.();
      },
      onScreen: takeScreen,
      onOutput: take,
      onResized: take,
      onExit: (e) => h.onExit?.(e),
      onClose: () => {
        closed = true;
        shown();
        h.onClose?.();
      },
    },
  );
  // Resolve with the session's screen in place, so the first snapshot() already shows it.
  await firstScreen;
  const blank = new RemoteGrid(conn.welcome.cols, conn.welcome.rows);
  return {
    pid: conn.welcome.pid,
    snapshot(): PtySnapshot {
      const sc = screen;
      if (!sc) return (remote ?? blank).snapshot();
      const buf = sc.term.buffer.active;
      return {
        cols: sc.cols,
        rows: sc.rows,
        lines: sc.lines(),
        ansiLines: sc.lines({ ansi: true }),
        cursor: { x: buf.cursorX, y: buf.cursorY },
        bufferType: buf.type,
      };
    },
    grid(): ScreenGrid {
      return screen ? screenGrid(screen) : (remote ?? blank);
    },
    close(): void {
      if (closed) return;
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

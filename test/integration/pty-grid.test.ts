// Grid viewers (framing.ts `rows` frames): a real CLI in a real PTY, its host on a real socket,
// and viewers that get the screen as rows of cells. Checked against the host's own screen, cell by
// cell: the first frame is the whole screen; then only the rows that changed, paced, none while
// the CLI is quiet; a resize sends the whole screen again; the last screen comes before the exit.
// And the viewer the dashboard opens (openPtyViewer) shows the same rows whether the host sends
// rows or bytes (a host that predates grids), the latter parsed by a headless terminal it loads.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nullLogger } from '../../src/lib/logger.js';
import { connectPty, type PtyConnection } from '../../src/pty/host-client.js';
import type { GridRows } from '../../src/ptyd/framing.js';
import { PtyHost } from '../../src/ptyd/host.js';
import { ptySocketPath } from '../../src/ptyd/socket-path.js';
import { spawnInPty, type PtyChild } from '../../src/ptyd/pty-process.js';
import { RemoteGrid } from '../../src/pty/remote-grid.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { openPtyViewer, screenGrid, type ScreenGrid } from '../../src/pty/viewer.js';
import { until } from '../support/until.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HASH = 'a'.repeat(24);
const ID = '01JGRIDTEST000000000000000';

/** A CLI that echoes each line it reads back in bold green, numbered; `exit` ends it. */
async function startHost(): Promise<{
  host: PtyHost;
  child: PtyChild;
  screen: HeadlessScreen;
  socket: string;
  home: string;
  env: NodeJS.ProcessEnv;
}> {
  const home = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-grid-')));
  const env = { ...process.env, HOME: home, KLAUDE_HOME: home };
  const script =
    'n=0; while read l; do [ "$l" = exit ] && exit 3; n=$((n+1)); printf "\\033[1;32m%s %s\\033[0m 日本\\n" "$n" "$l"; done';
  const child = spawnInPty('/bin/sh', ['-c', script], {
    cols: 60,
    rows: 12,
    cwd: home,
    env: { PATH: process.env.PATH },
  });
  const screen = new HeadlessScreen({ cols: 60, rows: 12 });
  const socket = ptySocketPath(home, HASH, ID, env);
  const host = new PtyHost({ sessionId: ID, socketPath: socket, child, screen, log: nullLogger });
  cleanups.push(() => {
    child.kill('SIGKILL');
    screen.dispose();
    rmSync(home, { recursive: true, force: true });
  });
  await host.listen();
  return { host, child, screen, socket, home, env };
}

/** Every row of `a` as the host's screen has it, cell by cell, at widths that cut a wide character too. */
function expectSameRows(a: ScreenGrid, screen: HeadlessScreen): void {
  const b = screenGrid(screen);
  expect([a.cols, a.rows, a.bufferType]).toEqual([b.cols, b.rows, b.bufferType]);
  expect(a.cursor).toEqual(b.cursor);
  for (let y = 0; y < b.rows; y++) {
    expect(a.text(y)).toBe(b.text(y));
    for (const width of [b.cols, 40, 17, 12, 11, 9]) {
      expect(a.cells(y, width, true)).toEqual(b.cells(y, width, true));
      expect(a.cells(y, width, false)).toEqual(b.cells(y, width, false));
    }
  }
}

/** Whether any row of the grid contains `s`. */
const shows = (g: ScreenGrid, s: string): boolean => [...Array(g.rows).keys()].some((y) => g.text(y).includes(s));

async function controller(socket: string): Promise<PtyConnection> {
  const c = await connectPty(socket, { mode: 'control', size: { cols: 60, rows: 12 } });
  cleanups.push(() => c.detach());
  return c;
}

describe('grid viewers', () => {
  it('get the whole screen, then only changed rows, paced, and nothing while the CLI is quiet', async () => {
    const { socket, screen } = await startHost();
    const ctl = await controller(socket);
    ctl.input(Buffer.from('first\r'));
    await until('the first line', () => shows(screenGrid(screen), '1 first'));

    const frames: { at: number; m: GridRows }[] = [];
    const grid = new RemoteGrid(1, 1);
    const view = await connectPty(
      socket,
      { mode: 'view', history: 0, grid: { ms: 100 } },
      {
        onRows: (m) => {
          frames.push({ at: Date.now(), m });
          grid.apply(m);
        },
      },
    );
    cleanups.push(() => view.detach());
    expect(view.welcome.grid).toBe(true);
    await until('the first frame', () => frames.length === 1);
    expect(frames[0]!.m.full).toBe(true);
    expect(frames[0]!.m.changed.map(([y]) => y)).toEqual([...Array(12).keys()]);
    expectSameRows(grid, screen);

    // One line typed: the rows it touched, not the screen.
    ctl.input(Buffer.from('second\r'));
    await until('a second frame', () => frames.length >= 2 && shows(grid, '2 second'));
    await screen.parsed();
    expectSameRows(grid, screen);
    const touched = frames.slice(1).flatMap((f) => f.m.changed.map(([y]) => y));
    expect(frames.slice(1).every((f) => !f.m.full)).toBe(true);
    expect(new Set(touched).size).toBeLessThanOrEqual(4);

    // A burst of 40 lines: frames at least ~100 ms apart, and the last one shows the end.
    const before = frames.length;
    for (let i = 0; i < 40; i++) ctl.input(Buffer.from(`burst${i}\r`));
    await until('the burst shown', () => shows(grid, '42 burst39'));
    await screen.parsed();
    expectSameRows(grid, screen);
    const burst = frames.slice(before);
    for (let i = 1; i < burst.length; i++) expect(burst[i]!.at - burst[i - 1]!.at).toBeGreaterThanOrEqual(80);

    // Quiet: no frame.
    const quiet = frames.length;
    await new Promise((r) => setTimeout(r, 400));
    expect(frames.length).toBe(quiet);

    // The controller resizes: the whole screen at the new size.
    ctl.resize({ cols: 50, rows: 10 });
    await until('a frame at the new size', () => grid.cols === 50 && grid.rows === 10);
    expect(frames.at(-1)!.m.full).toBe(true);
    await screen.parsed();
    expectSameRows(grid, screen);
  });

  it('get the last screen before the exit', async () => {
    const { socket, screen } = await startHost();
    const ctl = await controller(socket);
    const grid = new RemoteGrid(1, 1);
    let atExit: string[] | null = null;
    const view = await connectPty(
      socket,
      { mode: 'view', history: 0, grid: { ms: 1000 } },
      {
        onRows: (m) => grid.apply(m),
        onExit: () => {
          atExit = grid.snapshot().lines;
        },
      },
    );
    cleanups.push(() => view.detach());
    // A frame is due at most once a second: the last output is sent with the exit, not dropped.
    ctl.input(Buffer.from('bye\rexit\r'));
    await until('the exit', () => atExit !== null);
    expect(atExit!.join('\n')).toContain('1 bye 日本');
    expectSameRows(grid, screen);
  });

  it('openPtyViewer shows the same rows from a grid host and from bytes parsed on its side', async () => {
    const { home, env, screen, socket } = await startHost();
    const ctl = await controller(socket);
    ctl.input(Buffer.from('\x1b[7mhello\x1b[0m\r'));
    await until('the line', () => shows(screenGrid(screen), '1 hello'));
    let updates = 0;
    const rows = await openPtyViewer(home, HASH, ID, { onUpdate: () => updates++ }, env, { gridMs: 16 });
    const bytes = await openPtyViewer(home, HASH, ID, {}, env);
    cleanups.push(
      () => rows.close(),
      () => bytes.close(),
    );
    // Opened means the session's screen is in the viewer already.
    expect(shows(rows.grid!(), '1 hello')).toBe(true);
    expect(shows(bytes.grid!(), '1 hello')).toBe(true);
    await screen.parsed();
    expectSameRows(rows.grid!(), screen);
    expectSameRows(bytes.grid!(), screen);
    expect(rows.snapshot().lines).toEqual(bytes.snapshot().lines);

    ctl.input(Buffer.from('more\r'));
    await until('the new line in both', () => shows(rows.grid!(), '2 more') && shows(bytes.grid!(), '2 more'));
    await screen.parsed();
    expectSameRows(rows.grid!(), screen);
    expectSameRows(bytes.grid!(), screen);
    expect(updates).toBeGreaterThan(0);
  });
});

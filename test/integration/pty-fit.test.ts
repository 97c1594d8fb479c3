// A viewer's size (the dashboard's preview asks for its pane's): the PTY takes it while nobody is
// attached, so the CLI draws for the pane; a controller's size wins while it is attached, and when
// it leaves the latest viewer's size is the PTY's again. A real CLI in a real PTY prints the size
// its terminal has (`stty size`) for each line it reads.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { nullLogger } from '../../src/lib/logger.js';
import { connectPty, type PtyConnection } from '../../src/pty/host-client.js';
import { openPtyViewer } from '../../src/pty/viewer.js';
import { PtyHost } from '../../src/ptyd/host.js';
import { spawnInPty } from '../../src/ptyd/pty-process.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { ptySocketPath } from '../../src/ptyd/socket-path.js';
import { screenGrid } from '../../src/pty/viewer.js';
import { until } from '../support/until.js';

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const HASH = 'b'.repeat(24);
const ID = '01JFITTEST0000000000000000';

async function startHost() {
  const home = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-fit-')));
  const env = { ...process.env, HOME: home, KLAUDE_HOME: home };
  const child = spawnInPty('/bin/sh', ['-c', 'while read l; do echo "size $(stty size) at $l"; done'], {
    cols: 100,
    rows: 30,
    cwd: home,
    env: { PATH: process.env.PATH },
  });
  const screen = new HeadlessScreen({ cols: 100, rows: 30 });
  const socket = ptySocketPath(home, HASH, ID, env);
  const host = new PtyHost({ sessionId: ID, socketPath: socket, child, screen, log: nullLogger });
  cleanups.push(() => {
    child.kill('SIGKILL');
    screen.dispose();
    rmSync(home, { recursive: true, force: true });
  });
  await host.listen();
  return { home, env, socket, screen, host };
}

const shows = (screen: HeadlessScreen, s: string): boolean => {
  const g = screenGrid(screen);
  return [...Array(g.rows).keys()].some((y) => g.text(y).includes(s));
};

describe('a viewer’s size', () => {
  it('is the PTY’s while no controller is attached, and again once the controller leaves', async () => {
    const { home, env, socket, screen, host } = await startHost();
    const viewer = await openPtyViewer(home, HASH, ID, {}, env, { gridMs: 16 });
    cleanups.push(() => viewer.close());
    // A controller that asks for no size (0×0 is no size) types for us: the viewer can't.
    const type = async (line: string): Promise<void> => {
      const c: PtyConnection = await connectPty(socket, { mode: 'control', size: { cols: 0, rows: 0 } });
      c.input(Buffer.from(`${line}\r`));
      await until(`the line ${line}`, () => shows(screen, `at ${line}`));
      c.detach();
      await until('the controller gone', () => !host.attachedController);
    };

    viewer.fit!({ cols: 50, rows: 12 });
    await until('the pane size', () => screen.cols === 50 && screen.rows === 12);
    await until('the viewer told', () => viewer.grid!().cols === 50);
    await type('zero');
    expect(shows(screen, 'size 12 50 at zero')).toBe(true);

    // Attached, the controller's size is the PTY's; the viewer's asking meanwhile changes nothing.
    const ctl = await connectPty(socket, { mode: 'control', size: { cols: 90, rows: 20 } });
    ctl.input(Buffer.from('one\r'));
    await until('the first line', () => shows(screen, 'size 20 90 at one'));
    viewer.fit!({ cols: 60, rows: 14 });
    ctl.input(Buffer.from('two\r'));
    await until('the second line', () => shows(screen, 'at two'));
    expect(shows(screen, 'size 20 90 at two')).toBe(true);

    // It leaves: the size the viewer asked for last.
    ctl.detach();
    await until('the viewer size back', () => screen.cols === 60 && screen.rows === 14);
    await type('three');
    expect(shows(screen, 'size 14 60 at three')).toBe(true);
  });

  it('of a viewer that never asked changes nothing', async () => {
    const { home, env, screen } = await startHost();
    const viewer = await openPtyViewer(home, HASH, ID, {}, env, { gridMs: 16 });
    cleanups.push(() => viewer.close());
    await new Promise((r) => setTimeout(r, 100));
    expect([screen.cols, screen.rows]).toEqual([100, 30]);
  });
});

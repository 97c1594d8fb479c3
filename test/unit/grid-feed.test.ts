// The host's grid feed (ptyd/grid-feed.ts) against a real headless screen: output written while a
// frame waits for the screen to parse is not lost (it gets the next frame).
import { describe, expect, it } from 'vitest';
import type { GridRows } from '../../src/ptyd/framing.js';
import { GridFeed } from '../../src/ptyd/grid-feed.js';
import { RemoteGrid } from '../../src/pty/remote-grid.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import { until } from '../support/until.js';

describe('GridFeed', () => {
  it('sends output that arrived between a frame’s parse mark and its callback in the next frame', async () => {
    const screen = new HeadlessScreen({ cols: 20, rows: 4, scrollback: 0 });
    const grid = new RemoteGrid(1, 1);
    const frames: GridRows[] = [];
    const feed = new GridFeed(screen, 0, (m) => {
      frames.push(m);
      grid.apply(m);
    });
    try {
      feed.flush();
      // The CLI writes again right after the frame asked the screen to parse what it had.
      const whenParsed = screen.whenParsed.bind(screen);
      let injected = false;
      screen.whenParsed = (cb: () => void): void => {
        whenParsed(cb);
        if (injected) return;
        injected = true;
        screen.write(' late');
        feed.changed();
      };
      screen.write('early');
      feed.changed();
      await until('the late output shown', () => grid.text(0) === 'early late');
      expect(frames.length).toBeGreaterThanOrEqual(3);
    } finally {
      feed.close();
      screen.dispose();
    }
  });
});

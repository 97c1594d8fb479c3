// The followed log drawn by the log painter on the real dashboard host, into a headless terminal:
// a line appended to the log is drawn without a React render or an Ink frame, in one short write
// where the terminal scrolls the pane; what the painter draws is what Ink draws for the same log
// (cell for cell, colours included, seen when following stops and Ink takes the pane back); keys
// that act on the log see the lines appended since the last render.
import chalk from 'chalk';
import { EventEmitter } from 'node:events';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sessionLogPath } from '../../src/config/paths.js';
import type { Db } from '../../src/db/client.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { LogFeed } from '../../src/feeds/log-feed.js';
import { SessionsFeed } from '../../src/feeds/sessions-feed.js';
import { ReducerStore } from '../../src/feeds/store.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import type { DashboardActions } from '../../src/ui/deps.js';
import { DashboardHost } from '../../src/ui/host.js';
import { initialUiState, uiReducer, type UiAction, type UiState } from '../../src/ui/state/ui-state.js';
import { themes } from '../../src/ui/theme.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { appendEvents } from './helpers/demo-data.js';

const COLS = 110;
const ROWS = 24;

/** A terminal: what is written goes to a headless screen, counted. */
class Term extends EventEmitter {
  readonly isTTY = true;
  columns = COLS;
  rows = ROWS;
  writableLength = 0;
  writable = true;
  destroyed = false;
  writableEnded = false;
  writes: string[] = [];
  readonly screen = new HeadlessScreen({ cols: COLS, rows: ROWS, scrollback: 0 });
  write(s: string | Uint8Array, a?: unknown, b?: unknown): boolean {
    this.writes.push(String(s));
    this.screen.write(String(s));
    const cb = typeof a === 'function' ? a : typeof b === 'function' ? b : undefined;
    (cb as (() => void) | undefined)?.();
    return true;
  }
  hasColors(): boolean {
    return true;
  }
  getColorDepth(): number {
    return 8;
  }
}

/** A keyboard: keys pressed are read by Ink's input hook. */
class FakeIn extends EventEmitter {
  isTTY = true;
  _handle = { reading: true, readStart: () => 0, readStop: () => 0 };
  private queue: string[] = [];
  press(keys: string): void {
    this.queue.push(keys);
    this.emit('readable');
  }
  setRawMode(): this {
    return this;
  }
  setEncoding(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  read(): string | null {
    return this.queue.shift() ?? null;
  }
  pause(): this {
    return this;
  }
  resume(): this {
    return this;
  }
}

async function until(ok: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

// Ink and the painter style text with chalk, which finds no colour terminal under vitest: give it one.
let level: typeof chalk.level;
beforeAll(() => {
  level = chalk.level;
  chalk.level = 2;
  return () => void (chalk.level = level);
});

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

interface Rig {
  term: Term;
  keys: FakeIn;
  host: DashboardHost;
  ui: ReducerStore<UiState, UiAction>;
  log: string;
  frames: () => number;
  /** The pane's inside, row by row, with colours (what the terminal shows). */
  pane: () => string[];
}

async function rig(): Promise<Rig> {
  const home: TempHome = makeTempHome({ prefix: 'klaude-logpaint-' });
  const { db, hash } = seedProject(home);
  const s = createSession(db as Db, { projectId: hash, type: 'general', runtime: 'claude', status: 'done' });
  const log = sessionLogPath(home.klaudeHome, hash, s.id);
  updateSession(db as Db, s.id, { logPath: log } as never);
  const events = [];
  for (let i = 0; i < 30; i++)
    events.push(
      i % 3 === 0
        ? { type: 'tool_call' as const, id: `t${i}`, name: 'Bash', summary: `npm test ${i}` }
        : { type: 'text' as const, text: `line ${i} of the answer` },
    );
  appendEvents(log, events);
  const pinned = Date.now();
  const term = new Term();
  const keys = new FakeIn();
  const logFeed = new LogFeed();
  const ui = new ReducerStore(uiReducer, initialUiState);
  let frames = 0;
  const host = new DashboardHost({
    deps: {
      sessions: new SessionsFeed({ db, projectId: hash, frameMs: 0, watchFiles: false }),
      log: logFeed,
      ui,
      theme: themes.color,
      actions: {} as DashboardActions,
      info: { project: 'p', instanceId: '01JHOST0000000000000000000' },
      logPathOf: () => log,
      // (the time pinned: the tree's ages beside the pane must not move between two looks at it)
      now: () => pinned,
    },
    stdout: term as unknown as NodeJS.WriteStream,
    stdin: keys as unknown as NodeJS.ReadStream,
    stderr: term as unknown as NodeJS.WriteStream,
    maxFps: 1000,
    onCrash: (e) => {
      throw e;
    },
    onRender: () => frames++,
  });
  cleanups.push(() => {
    host.close();
    logFeed.close();
    term.screen.dispose();
    db.close();
    home.cleanup();
  });
  host.show();
  // Rows between the panes' top and bottom borders (header, border; border, footer, the empty last row).
  const pane = (): string[] => term.screen.lines({ ansi: true }).slice(2, ROWS - 3);
  await until(() => term.screen.lines().some((l) => l.includes('line 29 of the answer')), 'the log');
  return { term, keys, host, ui, log, frames: () => frames, pane };
}

describe('the log painter', () => {
  it('draws appended lines without a React render, in a short write, as Ink would draw them', async () => {
    const r = await rig();
    await r.term.screen.parsed();
    expect(r.host.logPainter.region).not.toBeNull();
    const frames = r.frames();
    for (let i = 30; i < 36; i++) {
      const before = r.term.writes.length;
      appendEvents(r.log, [{ type: 'text', text: `streamed line ${i}` }]);
      await until(() => r.term.writes.length > before, `line ${i}`);
      await r.term.screen.parsed();
      expect(r.term.screen.lines().some((l) => l.includes(`streamed line ${i}`))).toBe(true);
      // One write for the line: the terminal scrolls the pane; the new line and what moved beside it.
      expect(r.term.writes.length - before).toBe(1);
      expect(r.term.writes.at(-1)!.length).toBeLessThan(400);
    }
    expect(r.frames()).toBe(frames); // no Ink frame at all

    // f stops following where the log is now (six lines further than React last saw it): Ink
    // draws the pane again, and shows the same cells the painter drew.
    const painted = r.pane();
    r.keys.press('f');
    await until(() => r.host.logPainter.region === null, 'Ink drawing the log');
    await until(() => r.term.screen.lines()[1]!.includes('paused'), 'the pane saying so');
    await r.term.screen.parsed();
    expect(r.pane()).toEqual(painted);
    expect(painted.join('\n')).toMatch(/\x1b\[[0-9;]*m/); // in colour
    expect(r.ui.getSnapshot().follow).toBe(false);
  });
});

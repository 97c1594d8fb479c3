// The running rows' clocks moved by the compositor (ui/render/clock-painter.ts) on the real
// dashboard host, into a headless terminal: a tick that changes only a clock's digits is drawn
// without an Ink frame, in a write of about the digits; a tick that changes more (a wider clock, an
// age) is a render. After each step, including the list scrolling, a resize, the selection moving
// and a session ending, the screen is cell for cell what Ink draws afresh at the same time.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { Clock } from '../../src/feeds/clock.js';
import { LogFeed } from '../../src/feeds/log-feed.js';
import { SessionsFeed } from '../../src/feeds/sessions-feed.js';
import { ReducerStore } from '../../src/feeds/store.js';
import { HeadlessScreen } from '../../src/ptyd/screen.js';
import type { DashboardActions } from '../../src/ui/deps.js';
import { DashboardHost } from '../../src/ui/host.js';
import { initialUiState, uiReducer } from '../../src/ui/state/ui-state.js';
import { themes } from '../../src/ui/theme.js';

const PROJECT = 'p0000000000000000000000c';
const NOW = Date.UTC(2026, 0, 15, 12, 0, 0);

/** A terminal: what is written goes to a headless screen, counted. */
class Term extends EventEmitter {
  readonly isTTY = true;
  columns = 160;
  rows = 20;
  writableLength = 0;
  writable = true;
  destroyed = false;
  writableEnded = false;
  writes: string[] = [];
  screen = new HeadlessScreen({ cols: 160, rows: 20, scrollback: 0 });
  write(s: string | Uint8Array, a?: unknown, b?: unknown): boolean {
    this.writes.push(String(s));
    // A PTY's line discipline turns \n into \r\n (Ink's own clear-and-draw, after a resize, has them).
    this.screen.write(String(s).replace(/\n/g, '\r\n'));
    const cb = typeof a === 'function' ? a : typeof b === 'function' ? b : undefined;
    (cb as (() => void) | undefined)?.();
    return true;
  }
  resize(columns: number, rows: number): void {
    this.columns = columns;
    this.rows = rows;
    this.screen.resize(columns, rows);
    this.emit('resize');
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

/** The screen of the test running (said when a wait times out). */
let screenNow = (): string => '';

async function until(ok: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}\n${screenNow()}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0).reverse()) c();
});

async function rig() {
  const db: Db = openMemoryDb();
  ensureProject(db, { hash: PROJECT, rootPath: '/tmp/klaude-clock-test' });
  const ids: string[] = [];
  // 30 rows, newest first: the list scrolls to keep the selection in view. agent-26 (the list's
  // 4th row) runs since 58 s ago, agent-8 (its 22nd) since 3 s ago.
  for (let i = 0; i < 30; i++) {
    const running = i === 26 || i === 8;
    ids.push(createSession(db, { projectId: PROJECT, type: `agent-${i}`, status: running ? 'running' : 'done' }).id);
  }
  db.sqlite.prepare('UPDATE sessions SET created_at = ?').run(NOW - 3 * 3_600_000 - 5000);
  db.sqlite
    .prepare('UPDATE sessions SET run_started_at = ?, activity = ? WHERE id = ?')
    .run(NOW - 58_000, 'Bash: npm test', ids[26]);
  db.sqlite
    .prepare('UPDATE sessions SET run_started_at = ?, activity = ? WHERE id = ?')
    .run(NOW - 3_000, 'Read', ids[8]);
  let t = NOW;
  const term = new Term();
  const keys = new FakeIn();
  const clock = new Clock(10);
  const feed = new SessionsFeed({ db, projectId: PROJECT, frameMs: 0, watchFiles: false });
  let frames = 0;
  const host = new DashboardHost({
    deps: {
      sessions: feed,
      log: new LogFeed(),
      ui: new ReducerStore(uiReducer, initialUiState),
      theme: themes.color,
      actions: {} as DashboardActions,
      info: { project: 'p', instanceId: '01JHOST0000000000000000000' },
      logPathOf: () => null,
      clock,
      now: () => t,
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
    clock.stop();
    term.screen.dispose();
    db.close();
  });
  host.show();
  screenNow = () => term.screen.lines().join('\n');
  const shows = async (text: string): Promise<void> => {
    await until(() => term.screen.lines().some((l) => l.includes(text)), `"${text}" on the screen`);
    await term.screen.parsed();
  };
  /** What Ink draws from scratch now (a remount on a cleared screen) is what the screen showed. */
  const sameAsFresh = async (): Promise<void> => {
    await term.screen.parsed();
    const before = term.screen.lines({ ansi: true });
    const n = term.writes.length;
    const f = frames;
    host.redraw();
    await until(() => term.writes.length > n && frames > f, 'the fresh frame');
    await new Promise((r) => setTimeout(r, 50)); // (the painters' layout effects land in the same flush)
    await term.screen.parsed();
    expect(term.screen.lines({ ansi: true })).toEqual(before);
  };
  return {
    term,
    keys,
    host,
    db,
    feed,
    ids,
    clock,
    frames: () => frames,
    set: (ms: number) => void (t = NOW + ms),
    shows,
    sameAsFresh,
  };
}

/** The screen row that shows this text. */
const rowWith = (term: Term, text: string): string => term.screen.lines().find((l) => l.includes(text)) ?? '';

describe('the clock painter', () => {
  it('moves a running row’s clock without an Ink frame; a wider clock or an age is a render', async () => {
    const r = await rig();
    await r.shows('58s Bash: npm test');
    const frames = r.frames();
    const n = r.term.writes.length;
    r.set(1000);
    await r.shows('59s Bash: npm test');
    expect(r.frames()).toBe(frames); // no Ink frame: the digits written where Ink drew them
    const wrote = r.term.writes.slice(n).join('');
    expect(wrote.length).toBeLessThan(120);
    expect(r.host.compositor.writes).toBeGreaterThan(0);
    await r.sameAsFresh();

    // 59s → 1m00s is wider: the row is laid out again (a render).
    const before = r.frames();
    r.set(2000);
    await r.shows('1m00s Bash: npm test');
    expect(r.frames()).toBeGreaterThan(before);
    await r.sameAsFresh();
    const after = r.frames();
    r.set(3000);
    await r.shows('1m01s Bash: npm test');
    expect(r.frames()).toBe(after);
    // Nothing changes: ticks write nothing.
    const quiet = r.term.writes.length;
    await new Promise((res) => setTimeout(res, 100));
    expect(r.term.writes.length).toBe(quiet);
  });

  it('stays right as the list scrolls, the selection moves, the terminal resizes and a session ends', async () => {
    const r = await rig();
    await r.shows('58s Bash: npm test');
    // Down 15 rows: the list scrolls (the window keeps the selection near its middle), agent-26 goes.
    for (let i = 0; i < 15; i++) r.keys.press('\x1b[B');
    await until(() => !r.term.screen.lines().some((l) => l.includes('agent-26')), 'the list scrolled');
    r.set(1000);
    await r.shows('4s Read');
    await r.sameAsFresh();
    // Up 5: agent-26 comes back as the top row (it was the 4th).
    for (let i = 0; i < 5; i++) r.keys.press('\x1b[A');
    await until(() => (r.term.screen.lines()[2] ?? '').includes('agent-26'), 'agent-26 on the top row');
    r.set(1500);
    await r.shows('59s Bash');
    expect(r.term.screen.lines()[2]).toContain('59s Bash');
    await r.sameAsFresh();
    // Up 7 more: onto it (selected, drawn inverse), back at its first place.
    for (let i = 0; i < 7; i++) r.keys.press('\x1b[A');
    await until(() => (r.term.screen.lines()[5] ?? '').includes('agent-26'), 'agent-26 on the 4th row');
    r.set(3000);
    await r.shows('1m01s Bash');
    r.set(4000);
    await r.shows('1m02s Bash');
    expect(rowWith(r.term, '1m02s Bash')).toContain('agent-26');
    await r.sameAsFresh();
    // A resize: the screen is cleared and drawn again; the clocks are found where the new frame has them.
    r.term.resize(140, 16);
    await until(() => r.host.size.getSnapshot().columns === 140, 'the new size');
    await r.shows('1m02s Bash');
    r.set(5000);
    await r.shows('1m03s Bash');
    await r.sameAsFresh();
    // The session ends: its row no longer has a clock, and the ticks leave it alone.
    r.db.sqlite.prepare("UPDATE sessions SET status = 'done', run_started_at = NULL WHERE id = ?").run(r.ids[26]);
    r.feed.refresh();
    await until(() => !rowWith(r.term, 'agent-26').includes('Bash'), 'the row without its clock');
    // (nothing running on screen: the clock stops; a late tick would leave the row alone)
    await until(() => !r.clock.running, 'the clock stopped');
    r.set(6000);
    expect(rowWith(r.term, 'agent-26')).not.toMatch(/\dm\d\ds/);
    await r.sameAsFresh();
  });
});

// The one suspend/resume path, on a fake terminal: alternate screen in and out, cursor, raw mode,
// stdin released (its read stopped) while away and taken back after; resize repaints from a clean
// screen; close is final and idempotent.
import { EventEmitter } from 'node:events';
import { afterEach, describe, expect, it } from 'vitest';
import { openMemoryDb } from '../../src/db/client.js';
import { LogFeed } from '../../src/feeds/log-feed.js';
import { SessionsFeed } from '../../src/feeds/sessions-feed.js';
import type { DashboardActions } from '../../src/ui/deps.js';
import { DashboardHost } from '../../src/ui/host.js';
import { ReducerStore } from '../../src/feeds/store.js';
import { initialUiState, uiReducer } from '../../src/ui/state/ui-state.js';
import { CLEAR_SCREEN, ENTER_ALT, HIDE_CURSOR, LEAVE_ALT, SHOW_CURSOR } from '../../src/lib/escapes.js';
import { themes } from '../../src/ui/theme.js';

/**
 * Until the output has been quiet for a while (a frame is throttled: its trailing repaint may come
 * late on a loaded machine). Absence can only be shown by waiting; the quiet spell is generous.
 */
async function settled(out: FakeOut, quietMs = 250, maxMs = 10_000): Promise<void> {
  const deadline = Date.now() + maxMs;
  let last = -1;
  let since = Date.now();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 25));
    if (out.data.length !== last) {
      last = out.data.length;
      since = Date.now();
    } else if (Date.now() - since >= quietMs) return;
  }
}

class FakeOut extends EventEmitter {
  isTTY = true;
  columns = 100;
  rows = 30;
  writableLength = 0;
  writable = true;
  destroyed = false;
  writableEnded = false;
  data = '';
  write(s: string | Uint8Array, a?: unknown, b?: unknown): boolean {
    this.data += String(s);
    const cb = typeof a === 'function' ? a : typeof b === 'function' ? b : undefined;
    (cb as (() => void) | undefined)?.();
    return true;
  }
  take(): string {
    const d = this.data;
    this.data = '';
    return d;
  }
}

class FakeIn extends EventEmitter {
  isTTY = true;
  raw: boolean[] = [];
  paused = false;
  _handle = {
    reading: true,
    starts: 0,
    stops: 0,
    readStart() {
      this.starts++;
      return 0;
    },
    readStop() {
      this.stops++;
      return 0;
    },
  };
  setRawMode(m: boolean): this {
    this.raw.push(m);
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
  read(): null {
    return null;
  }
  pause(): this {
    this.paused = true;
    return this;
  }
  resume(): this {
    this.paused = false;
    return this;
  }
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
let host: DashboardHost | undefined;
afterEach(() => host?.close());

function makeHost(out: FakeOut, input: FakeIn): DashboardHost {
  const db = openMemoryDb();
  return new DashboardHost({
    deps: {
      sessions: new SessionsFeed({ db, projectId: 'none', frameMs: 0, watchFiles: false }),
      log: new LogFeed(),
      ui: new ReducerStore(uiReducer, initialUiState),
      theme: themes.noColor,
      actions: {} as DashboardActions,
      info: { project: 'p', instanceId: '01JHOST0000000000000000000' },
      logPathOf: () => null,
    },
    stdout: out as unknown as NodeJS.WriteStream,
    stdin: input as unknown as NodeJS.ReadStream,
    stderr: out as unknown as NodeJS.WriteStream,
    maxFps: 30,
    onCrash: (e) => {
      throw e;
    },
  });
}

describe('DashboardHost', () => {
  it('suspends and resumes through one path: screen, cursor, raw mode, stdin', async () => {
    const out = new FakeOut();
    const input = new FakeIn();
    host = makeHost(out, input);
    host.show();
    await turn();
    const shown = out.take();
    expect(shown.startsWith(ENTER_ALT + HIDE_CURSOR + CLEAR_SCREEN)).toBe(true);
    expect(shown).toContain('no sessions yet');
    expect(input.raw.at(-1)).toBe(true); // the input hook armed raw mode

    host.suspend();
    const away = out.take();
    expect(away.endsWith(SHOW_CURSOR + LEAVE_ALT)).toBe(true);
    expect(input.raw.at(-1)).toBe(false);
    expect(input.paused).toBe(true);
    expect(input._handle).toMatchObject({ reading: false, stops: 1 }); // nobody reads the terminal now
    expect(host.screen.inAltScreen).toBe(false);

    host.resume();
    await turn();
    const back = out.take();
    expect(back.startsWith(ENTER_ALT + HIDE_CURSOR + CLEAR_SCREEN)).toBe(true);
    expect(back).toContain('no sessions yet'); // a full repaint on a clean screen
    expect(input._handle).toMatchObject({ reading: true, starts: 1 });
    expect(input.raw.at(-1)).toBe(true);

    host.close();
    expect(out.take().endsWith(SHOW_CURSOR + LEAVE_ALT)).toBe(true);
    host.close();
    host.show(); // closed is final
    expect(out.take()).toBe('');
  });

  it('repaints from a clean screen on resize, one row shorter than the terminal', async () => {
    const out = new FakeOut();
    const input = new FakeIn();
    host = makeHost(out, input);
    host.show();
    await turn();
    out.take();
    out.columns = 60;
    out.rows = 12;
    out.emit('resize');
    await settled(out); // the throttled repaint, leading and trailing frames alike
    const frame = out.take();
    expect(frame.startsWith(CLEAR_SCREEN)).toBe(true);
    const lines = frame
      .slice(CLEAR_SCREEN.length)
      .replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '')
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.length).toBeLessThanOrEqual(11);
    expect(host.size.getSnapshot()).toEqual({ columns: 60, rows: 12 });
    out.emit('resize'); // same size again: nothing
    await settled(out);
    expect(out.take()).toBe('');
  });

  it('restores the terminal synchronously on emergencies', () => {
    const out = new FakeOut();
    const input = new FakeIn();
    host = makeHost(out, input);
    host.show();
    out.take();
    host.screen.emergencyRestore();
    expect(out.take()).toMatch(/\x1b\[\?25h.*\x1b\[\?1049l$/);
    expect(host.screen.inAltScreen).toBe(false);
    expect(input.raw.at(-1)).toBe(false);
  });
});

// The web terminal's reconnect policy (src/web/page/terminal-socket.ts) under fake timers: which
// closes are retried, the backoff, retrying at once when the page comes back, never while parked,
// signed out never loops, and nothing left timed once closed or disposed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  backoffMs,
  CONNECT_TIMEOUT_MS,
  TerminalLink,
  type LinkState,
  type SocketLike,
} from '../../src/web/page/terminal-socket.js';

class FakeSocket implements SocketLike {
  readyState = 0;
  binaryType = 'blob';
  onopen: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: unknown }) => void) | null = null;
  onclose: ((e: { code: number }) => void) | null = null;
  sent: string[] = [];
  closedByPage = false;
  send(d: string): void {
    this.sent.push(d);
  }
  close(): void {
    this.closedByPage = true;
    this.readyState = 3;
  }
  serverOpens(): void {
    this.readyState = 1;
    this.onopen?.({});
  }
  serverCloses(code: number): void {
    this.readyState = 3;
    this.onclose?.({ code });
  }
}

interface Rig {
  link: TerminalLink;
  sockets: FakeSocket[];
  states: LinkState[];
  page: { parked: boolean; listeners: Set<() => void>; change(parked: boolean): void };
  signedOut: { value: boolean; asked: number };
  last(): FakeSocket;
}

function rig(): Rig {
  const sockets: FakeSocket[] = [];
  const states: LinkState[] = [];
  const signedOut = { value: false, asked: 0 };
  const page = {
    parked: false,
    listeners: new Set<() => void>(),
    change(p: boolean) {
      this.parked = p;
      for (const l of this.listeners) l();
    },
  };
  const link = new TerminalLink({
    open: () => {
      const s = new FakeSocket();
      sockets.push(s);
      return s;
    },
    onMessage: () => undefined,
    onState: (s) => states.push(s),
    signedOut: () => (signedOut.asked++, Promise.resolve(signedOut.value)),
    page: {
      parked: () => page.parked,
      watch: (fn) => (page.listeners.add(fn), () => page.listeners.delete(fn)),
    },
    random: () => 0,
  });
  link.start();
  return { link, sockets, states, page, signedOut, last: () => sockets[sockets.length - 1]! };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('backoff', () => {
  it('starts at 0.5 s, doubles, stops at 10 s, each wait up to a quarter shorter at random', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 50].map((n) => backoffMs(n, () => 0))).toEqual([
      500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000,
    ]);
    expect(backoffMs(1, () => 0.5)).toBe(438);
    expect(backoffMs(1, () => 0.999)).toBe(375);
    expect(backoffMs(60, () => 0.999)).toBe(7503);
  });
});

describe('TerminalLink', () => {
  it('retries an unexpected close after the backoff, and counts attempts until one opens', async () => {
    const r = rig();
    r.last().serverOpens();
    r.last().serverCloses(1006);
    expect(r.link.current).toEqual({ k: 'down', attempt: 1 });
    // A socket that had opened was not refused: no sign-in question.
    expect(r.signedOut.asked).toBe(0);
    await vi.advanceTimersByTimeAsync(499);
    expect(r.sockets).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.sockets).toHaveLength(2);
    expect(r.link.current).toEqual({ k: 'connecting', attempt: 1 });
    r.last().serverCloses(1006);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.signedOut.asked).toBe(1);
    expect(r.link.current).toEqual({ k: 'down', attempt: 2 });
    await vi.advanceTimersByTimeAsync(999);
    expect(r.sockets).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(r.sockets).toHaveLength(3);
    r.last().serverOpens();
    expect(r.link.current).toEqual({ k: 'open' });
    expect(vi.getTimerCount()).toBe(0);
    // Open again: the next drop starts from the first delay.
    r.last().serverCloses(1013);
    expect(r.link.current).toEqual({ k: 'down', attempt: 1 });
  });

  it.each([
    [4401, 'signed-out'],
    [1000, 'ended'],
    [1011, 'gone'],
  ])('close %i is final (%s): no retry, nothing timed', async (code, why) => {
    const r = rig();
    r.last().serverOpens();
    r.last().serverCloses(code);
    expect(r.link.current).toEqual({ k: 'closed', why });
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(r.sockets).toHaveLength(1);
  });

  it('a socket refused before opening while signed out (401) stops: no loop', async () => {
    const r = rig();
    r.signedOut.value = true;
    r.last().serverCloses(1006);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.link.current).toEqual({ k: 'closed', why: 'signed-out' });
    expect(vi.getTimerCount()).toBe(0);
    r.link.retryNow();
    r.page.change(false);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(r.sockets).toHaveLength(1);
  });

  it('retries at once when the page comes back, and times nothing while parked', async () => {
    const r = rig();
    r.last().serverOpens();
    r.last().serverCloses(1006);
    expect(vi.getTimerCount()).toBe(1);
    r.page.change(true);
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(r.sockets).toHaveLength(1);
    r.page.change(false);
    expect(r.sockets).toHaveLength(2);
    expect(r.link.current).toEqual({ k: 'connecting', attempt: 1 });
    // Failing while parked: nothing timed until the page comes back.
    r.page.parked = true;
    r.last().serverCloses(1006);
    await vi.advanceTimersByTimeAsync(0);
    expect(r.link.current).toEqual({ k: 'down', attempt: 2 });
    expect(vi.getTimerCount()).toBe(0);
    r.page.change(false);
    expect(r.sockets).toHaveLength(3);
  });

  it('"Reconnect now" skips the wait; an open socket is left alone by page changes', async () => {
    const r = rig();
    r.last().serverOpens();
    r.page.change(false);
    expect(r.sockets).toHaveLength(1);
    r.last().serverCloses(1006);
    r.link.retryNow();
    expect(r.sockets).toHaveLength(2);
    expect(vi.getTimerCount()).toBe(1); // the connect time-out only
    r.last().serverOpens();
    expect(vi.getTimerCount()).toBe(0);
    expect(r.link.send('x')).toBe(true);
    expect(r.last().sent).toEqual(['x']);
  });

  it('gives up an attempt that neither opens nor closes, and tries again', async () => {
    const r = rig();
    await vi.advanceTimersByTimeAsync(CONNECT_TIMEOUT_MS);
    expect(r.sockets[0]!.closedByPage).toBe(true);
    expect(r.link.current).toEqual({ k: 'down', attempt: 1 });
    await vi.advanceTimersByTimeAsync(500);
    expect(r.sockets).toHaveLength(2);
  });

  it('disposed (the view closed): the socket is closed, nothing timed, no listener left', async () => {
    const r = rig();
    r.last().serverOpens();
    r.last().serverCloses(1006);
    expect(vi.getTimerCount()).toBe(1);
    r.link.dispose();
    expect(vi.getTimerCount()).toBe(0);
    expect(r.page.listeners.size).toBe(0);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(r.sockets).toHaveLength(1);

    const c = rig();
    c.link.dispose();
    expect(c.sockets[0]!.closedByPage).toBe(true);
    expect(c.sockets[0]!.onclose).toBeNull();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('sends nothing while down (nothing is queued for the next socket)', () => {
    const r = rig();
    expect(r.link.send('early')).toBe(false);
    r.last().serverOpens();
    r.last().serverCloses(1006);
    expect(r.link.send('late')).toBe(false);
    expect(r.sockets[0]!.sent).toEqual([]);
  });
});

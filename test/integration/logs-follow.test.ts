// The log follower against real files, with lines written by this process and by another one.
import { execFile } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { followLog, type FollowOptions } from '../../src/logs/follow.js';

const run = promisify(execFile);
let dir: string;
let watchersBefore: number;
/** Open fs.watch handles, once closes in flight have completed (a handle closes on the next loop turn). */
const fsWatchers = async (): Promise<number> => {
  await new Promise((r) => setTimeout(r, 0));
  await new Promise((r) => setImmediate(r));
  return process.getActiveResourcesInfo().filter((r) => r === 'FSEventWrap').length;
};

beforeEach(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'klaude-follow-'));
  watchersBefore = await fsWatchers();
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const line = (ts: number, extra: Record<string, unknown> = {}) =>
  `${JSON.stringify({ type: 'text', ts, text: `event ${ts}`, ...extra })}\n`;
const doneLine = (ts: number) => `${JSON.stringify({ type: 'done', ts, status: 'done', finalText: 'fin' })}\n`;

/** Collects events and lets a test wait for the n-th one (bounded, so a broken follower fails instead of hanging). */
function collector() {
  const events: AgentEvent[] = [];
  const lines: string[] = [];
  let waiters: { n: number; resolve: () => void }[] = [];
  const onEvent: FollowOptions['onEvent'] = (e, l) => {
    events.push(e);
    lines.push(l);
    waiters = waiters.filter((w) => (events.length >= w.n ? (w.resolve(), false) : true));
  };
  const waitFor = (n: number, ms = 15_000): Promise<void> =>
    events.length >= n
      ? Promise.resolve()
      : new Promise((resolve, reject) => {
          const t = setTimeout(
            () => reject(new Error(`timed out waiting for ${n} events; got ${events.length}: ${lines.join(' | ')}`)),
            ms,
          );
          waiters.push({ n, resolve: () => (clearTimeout(t), resolve()) });
        });
  const ts = () => events.map((e) => e.ts);
  return { events, lines, onEvent, waitFor, ts };
}

/** Bound a follow so a broken follower fails the test quickly instead of hanging it. */
function bounded<T>(p: Promise<T>, ms = 15_000): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`follow did not end within ${ms} ms`)), ms);
    }),
  ]);
}

/** A node process that appends lines to `file`, some torn across two writes, with pauses. */
function appendFromAnotherProcess(file: string, count: number): Promise<unknown> {
  const script = `
    const fs = require('node:fs');
    const file = ${JSON.stringify(file)};
    const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
    (async () => {
      for (let i = 1; i <= ${count}; i++) {
        const l = JSON.stringify({ type: 'text', ts: i, text: 'from child ' + i }) + '\\n';
        if (i % 7 === 0) {
          fs.appendFileSync(file, l.slice(0, 9));
          await sleep(3);
          fs.appendFileSync(file, l.slice(9));
        } else if (i % 5 === 0) {
          fs.appendFileSync(file, l + JSON.stringify({ type: 'tool_call', ts: i + 0.5, id: 't' + i, name: 'Bash', summary: 'ls' }) + '\\n');
        } else {
          fs.appendFileSync(file, l);
        }
        if (i % 10 === 0) await sleep(5);
      }
      fs.appendFileSync(file, JSON.stringify({ type: 'done', ts: ${count + 1}, status: 'done' }) + '\\n');
    })();`;
  return run(process.execPath, ['-e', script]);
}

describe('followLog', () => {
  it('sees lines appended by another process, in order, and ends after done', async () => {
    const file = path.join(dir, 's.ndjson');
    writeFileSync(file, '');
    const c = collector();
    const following = followLog(file, { fromStart: true, untilDone: true, onEvent: c.onEvent });
    await appendFromAnotherProcess(file, 60);
    const end = await bounded(following);
    expect(end.reason).toBe('done');
    expect(end.done?.status).toBe('done');
    const expected: number[] = [];
    for (let i = 1; i <= 60; i++) expected.push(...(i % 5 === 0 && i % 7 !== 0 ? [i, i + 0.5] : [i]));
    expect(c.ts()).toEqual([...expected, 61]);
    expect(await fsWatchers()).toBe(watchersBefore);
  });

  it('follows a file created after it starts, even when its directories do not exist yet', async () => {
    const logs = path.join(dir, 'projects', 'abc', 'logs');
    const file = path.join(logs, 'new.ndjson');
    const c = collector();
    const following = followLog(file, { untilDone: true, onEvent: c.onEvent });
    await new Promise((r) => setTimeout(r, 30));
    mkdirSync(path.join(dir, 'projects'));
    await new Promise((r) => setTimeout(r, 10));
    mkdirSync(logs, { recursive: true });
    appendFileSync(file, line(1));
    await c.waitFor(1);
    appendFileSync(file, line(2) + doneLine(3));
    expect((await bounded(following)).reason).toBe('done');
    expect(c.ts()).toEqual([1, 2, 3]);
    expect(await fsWatchers()).toBe(watchersBefore);
  });

  it('holds a partial line until its newline is written', async () => {
    const file = path.join(dir, 'p.ndjson');
    writeFileSync(file, '');
    const c = collector();
    const ac = new AbortController();
    const following = followLog(file, { onEvent: c.onEvent, signal: ac.signal });
    const second = line(2);
    appendFileSync(file, line(1) + second.slice(0, 12)); // one complete line and the start of another, in one write
    await c.waitFor(1);
    expect(c.ts()).toEqual([1]); // the torn part was read with the first line and held back
    appendFileSync(file, second.slice(12, 20));
    appendFileSync(file, second.slice(20));
    await c.waitFor(2);
    expect(c.ts()).toEqual([1, 2]);
    expect(c.lines[1]).toBe(second.trimEnd());
    ac.abort();
    expect((await bounded(following)).reason).toBe('aborted');
  });

  it('runs two followers of one file at once', async () => {
    const file = path.join(dir, 'two.ndjson');
    writeFileSync(file, line(1));
    const a = collector();
    const b = collector();
    const fa = followLog(file, { fromStart: true, untilDone: true, onEvent: a.onEvent });
    const fb = followLog(file, { fromTail: 0, untilDone: true, onEvent: b.onEvent });
    await a.waitFor(1);
    appendFileSync(file, line(2));
    await Promise.all([a.waitFor(2), b.waitFor(1)]);
    appendFileSync(file, line(3) + doneLine(4));
    const [ea, eb] = await Promise.all([fa, fb]);
    expect([ea.reason, eb.reason]).toEqual(['done', 'done']);
    expect(a.ts()).toEqual([1, 2, 3, 4]);
    expect(b.ts()).toEqual([2, 3, 4]);
    expect(await fsWatchers()).toBe(watchersBefore);
  });

  it('stops on abort and delivers nothing after it', async () => {
    const file = path.join(dir, 'abort.ndjson');
    writeFileSync(file, '');
    const c = collector();
    const ac = new AbortController();
    const following = followLog(file, { onEvent: c.onEvent, signal: ac.signal });
    appendFileSync(file, line(1));
    await c.waitFor(1);
    ac.abort();
    const end = await bounded(following);
    expect(end.reason).toBe('aborted');
    expect(end.offset).toBe(Buffer.byteLength(line(1)));
    appendFileSync(file, line(2));
    await new Promise((r) => setTimeout(r, 50));
    expect(c.ts()).toEqual([1]);
    expect(await fsWatchers()).toBe(watchersBefore);
    // an already-aborted signal resolves at once
    expect((await bounded(followLog(file, { onEvent: c.onEvent, signal: AbortSignal.abort() }))).reason).toBe(
      'aborted',
    );
    expect(c.ts()).toEqual([1]);
  });

  it('starts from the tail, or at an offset', async () => {
    const file = path.join(dir, 'tail.ndjson');
    writeFileSync(file, [1, 2, 3, 4, 5].map((i) => line(i)).join(''));
    const c = collector();
    const following = followLog(file, { fromTail: 2, untilDone: true, onEvent: c.onEvent });
    await c.waitFor(2);
    appendFileSync(file, doneLine(6));
    await bounded(following);
    expect(c.ts()).toEqual([4, 5, 6]);

    const d = collector();
    const off = Buffer.byteLength(line(1) + line(2));
    await bounded(followLog(file, { fromOffset: off, untilDone: true, onEvent: d.onEvent }));
    expect(d.ts()).toEqual([3, 4, 5, 6]);
  });

  it('reads a truncated file again from the start', async () => {
    const file = path.join(dir, 'trunc.ndjson');
    const pad = { text: 'x'.repeat(500) };
    writeFileSync(file, line(1, pad) + line(2, pad));
    const c = collector();
    const following = followLog(file, { fromStart: true, untilDone: true, onEvent: c.onEvent });
    await c.waitFor(2);
    truncateSync(file, 0);
    appendFileSync(file, line(10) + doneLine(11));
    await bounded(following);
    expect(c.ts()).toEqual([1, 2, 10, 11]);
  });

  it('follows a file that is replaced or deleted and created again', async () => {
    const file = path.join(dir, 'swap.ndjson');
    writeFileSync(file, line(1));
    const c = collector();
    const following = followLog(file, { fromStart: true, untilDone: true, onEvent: c.onEvent });
    await c.waitFor(1);
    // The delete-wait-create below gets the same inode number back on ext4 (the follower's watch on
    // the old file is gone by then, so the inode is free): only the birth time tells the files apart.
    const tmp = path.join(dir, 'swap.tmp');
    writeFileSync(tmp, line(20));
    renameSync(tmp, file); // atomic replace: new inode
    await c.waitFor(2);
    unlinkSync(file);
    await new Promise((r) => setTimeout(r, 30));
    writeFileSync(file, line(30) + doneLine(31));
    await bounded(following);
    expect(c.ts()).toEqual([1, 20, 30, 31]);
    expect(await fsWatchers()).toBe(watchersBefore);
  });

  it('reads a file deleted and written again at once from the start, round after round', async () => {
    const file = path.join(dir, 'again.ndjson');
    writeFileSync(file, line(1));
    const c = collector();
    const following = followLog(file, { fromStart: true, untilDone: true, onEvent: c.onEvent });
    await c.waitFor(1);
    for (let round = 2; round <= 6; round++) {
      // No await between: the follower may never see the path missing, only a new file in its place.
      unlinkSync(file);
      writeFileSync(file, line(round * 10, { text: 'longer than before '.repeat(round) }) + line(round * 10 + 1));
      await c.waitFor(1 + (round - 1) * 2);
    }
    appendFileSync(file, doneLine(99));
    await bounded(following);
    expect(c.ts()).toEqual([1, 20, 21, 30, 31, 40, 41, 50, 51, 60, 61, 99]);
  });

  it('untilDone follows a log with several turns to its real end', async () => {
    const file = path.join(dir, 'turns.ndjson');
    const user = (ts: number) => `${JSON.stringify({ type: 'user', ts, text: 'more' })}\n`;
    const status = (ts: number) => `${JSON.stringify({ type: 'status', ts, status: 'idle' })}\n`;
    writeFileSync(file, user(1) + line(2) + doneLine(3) + status(4) + user(5) + line(6));
    const c = collector();
    const following = followLog(file, { fromStart: true, untilDone: true, onEvent: c.onEvent });
    await c.waitFor(6); // the first done was followed by a new turn: still following
    appendFileSync(file, doneLine(7) + status(8));
    const end = await bounded(following);
    expect(end).toMatchObject({ reason: 'done', done: { ts: 7 } });
    expect(c.ts()).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);

    // a log that already ended: resolves right after reading it
    const d = collector();
    expect((await bounded(followLog(file, { fromTail: 3, untilDone: true, onEvent: d.onEvent }))).reason).toBe('done');
    expect(d.ts()).toEqual([6, 7, 8]);
  });

  it('stopWhen ends right after the matching event', async () => {
    const file = path.join(dir, 'stop.ndjson');
    writeFileSync(file, doneLine(1) + line(2));
    const c = collector();
    const following = followLog(file, {
      fromStart: true,
      onEvent: c.onEvent,
      stopWhen: (e) => e.type === 'done' && e.ts > 2,
    });
    await c.waitFor(2);
    appendFileSync(file, doneLine(3) + line(4));
    const end = await bounded(following);
    expect(end.reason).toBe('stopped');
    expect(c.ts()).toEqual([1, 2, 3]);
    expect(end.offset).toBe(Buffer.byteLength(doneLine(1) + line(2) + doneLine(3))); // not past the undelivered line 4
  });

  it('rejects when onEvent throws, and cleans up', async () => {
    const file = path.join(dir, 'throw.ndjson');
    writeFileSync(file, line(1));
    await expect(
      followLog(file, {
        onEvent: () => {
          throw new Error('consumer broke');
        },
      }),
    ).rejects.toThrow(/consumer broke/);
    expect(await fsWatchers()).toBe(watchersBefore);
  });
});

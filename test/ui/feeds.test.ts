// The dashboard's live data without polling: the session tree re-queries when any process
// writes the DB (file notifications on its WAL), at most once per frame; the log pane follows
// appends. Real SQLite files, a second connection as "another process", real log files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { LogFeed } from '../../src/feeds/log-feed.js';
import { SessionsFeed } from '../../src/feeds/sessions-feed.js';
import { appendEvents } from './helpers/demo-data.js';

const P = 'p0000000000000000000000b';
let dir = '';
const open: { close(): void }[] = [];
afterEach(() => {
  for (const o of open.splice(0)) o.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function until<T>(get: () => T | undefined, ms = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const end = Date.now() + ms;
    const tick = (): void => {
      const v = get();
      if (v !== undefined) resolve(v);
      else if (Date.now() > end) reject(new Error('timed out'));
      else setTimeout(tick, 5);
    };
    tick();
  });
}

function twoConnections(): { mine: Db; other: Db } {
  dir = mkdtempSync(path.join(tmpdir(), 'klaude-feed-'));
  const mine = openDb(dir);
  const other = openDb(dir);
  open.push(mine, other);
  ensureProject(other, { hash: P, rootPath: dir });
  return { mine, other };
}

describe('SessionsFeed', () => {
  it('sees another process’s writes through file notifications, coalescing a burst into one query', async () => {
    const { mine, other } = twoConnections();
    const feed = new SessionsFeed({ db: mine, projectId: P, frameMs: 50 });
    open.push(feed);
    expect(feed.getSnapshot().sessions).toHaveLength(0);
    let notified = 0;
    feed.subscribe(() => notified++);
    const before = feed.queries;
    const s = createSession(other, { projectId: P, type: 'reviewer', status: 'pending' });
    for (const st of ['running', 'waiting', 'running'] as const) updateSession(other, s.id, { status: st });
    const seen = await until(() =>
      feed.getSnapshot().sessions[0]?.status === 'running' ? feed.getSnapshot() : undefined,
    );
    expect(seen.sessions.map((x) => x.type)).toEqual(['reviewer']);
    // Four writes; re-queries capped at one per frame (one leading, at most one trailing per frame).
    await new Promise((r) => setTimeout(r, 150));
    expect(feed.queries - before).toBeLessThanOrEqual(3);
    expect(notified).toBeLessThanOrEqual(3);
  });

  it('does nothing while nothing changes: no queries, no notifications', async () => {
    const { mine } = twoConnections();
    const feed = new SessionsFeed({ db: mine, projectId: P, frameMs: 10 });
    open.push(feed);
    const q = feed.queries;
    let notified = 0;
    feed.subscribe(() => notified++);
    await new Promise((r) => setTimeout(r, 300));
    expect(feed.queries).toBe(q);
    expect(notified).toBe(0);
    const probes = feed.probes;
    feed.poke(); // a notification with no change: the cheap probe, no query, no re-render
    await until(() => (feed.probes > probes ? true : undefined));
    expect(feed.queries).toBe(q);
    expect(notified).toBe(0);
  });

  it('re-queries for writes to this project’s rows only: another project’s writes cost a probe', async () => {
    const { mine, other } = twoConnections();
    const Q = 'q0000000000000000000000c';
    ensureProject(other, { hash: Q, rootPath: path.join(dir, 'elsewhere') });
    const theirs = createSession(other, { projectId: Q, type: 'coder', status: 'running' });
    const feed = new SessionsFeed({ db: mine, projectId: P, frameMs: 5 });
    open.push(feed);
    const q = feed.queries;
    const probes = feed.probes;
    for (let i = 0; i < 20; i++) {
      updateSession(other, theirs.id, { activity: `step ${i}`, lastText: `text ${i}` });
      await new Promise((r) => setTimeout(r, 10));
    }
    await until(() => (feed.probes > probes ? true : undefined));
    await new Promise((r) => setTimeout(r, 100));
    expect(feed.queries).toBe(q);
    const s = createSession(other, { projectId: P, type: 'reviewer', status: 'running' });
    await until(() => (feed.getSnapshot().sessions.some((x) => x.id === s.id) ? true : undefined));
    expect(feed.queries).toBe(q + 1);
    updateSession(other, s.id, { activity: 'writing' });
    await until(() =>
      feed.getSnapshot().sessions.find((x) => x.id === s.id)?.activity === 'writing' ? true : undefined,
    );
    expect(Object.isFrozen(feed.getSnapshot().sessions)).toBe(true);
  });
});

describe('LogFeed', () => {
  it('reads the tail, then every appended line; switching sessions stops the old follower', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'klaude-logfeed-'));
    const a = path.join(dir, 'logs', 'a.ndjson');
    const b = path.join(dir, 'logs', 'b.ndjson');
    appendEvents(a, [
      { type: 'text', text: 'a1' },
      { type: 'text', text: 'a2' },
    ]);
    const appended: string[] = [];
    const feed = new LogFeed({ tail: 1, onAppend: (e) => appended.push(e.type === 'text' ? e.text : e.type) });
    open.push(feed);
    feed.select('a', a);
    await until(() => (feed.getSnapshot().loaded ? true : undefined));
    expect(feed.getSnapshot().events.map((e) => (e.type === 'text' ? e.text : ''))).toEqual(['a2']);
    appendEvents(a, [{ type: 'text', text: 'a3' }]);
    await until(() => (feed.getSnapshot().events.length === 2 ? true : undefined));
    expect(appended).toEqual(['a3']);
    // A log that does not exist yet is followed from its first line.
    feed.select('b', b);
    await until(() => (feed.getSnapshot().loaded ? true : undefined));
    expect(feed.getSnapshot()).toMatchObject({ sessionId: 'b', missing: true, events: [] });
    appendEvents(b, [{ type: 'text', text: 'b1' }]);
    appendEvents(a, [{ type: 'text', text: 'a4' }]);
    await until(() => (feed.getSnapshot().events.length === 1 ? true : undefined));
    await new Promise((r) => setTimeout(r, 100));
    expect(feed.getSnapshot().events.map((e) => (e.type === 'text' ? e.text : ''))).toEqual(['b1']);
    expect(appended).toEqual(['a3', 'b1']);
  });
});

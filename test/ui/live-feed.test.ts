// The log pane's feed, live: streamed pieces fold into one growing entry and the whole text
// replaces them; a session that ran interactively gets Claude's transcript merged in time order
// (and what claude appends to it later); snapshots are frozen.
import { appendFileSync, copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { LogFeed } from '../../src/feeds/log-feed.js';
import { Emitter } from '../../src/feeds/store.js';
import { REPO_ROOT } from '../support/klaude-bin.js';
import { appendEvents } from './helpers/demo-data.js';

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

const brief = (e: AgentEvent): string => `${e.type}${'text' in e ? ` ${e.text}` : ''}`;

describe('LogFeed, live', () => {
  it('folds text pieces into one entry, replaced by the whole text', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'klaude-livefeed-'));
    const log = path.join(dir, 'a.ndjson');
    appendEvents(log, [{ type: 'user', text: 'go', source: 'start' }]);
    const feed = new LogFeed();
    open.push(feed);
    feed.select('a', log);
    await until(() => (feed.getSnapshot().loaded ? true : undefined));
    appendEvents(log, [{ type: 'text_delta', text: 'Hel' }]);
    appendEvents(log, [{ type: 'text_delta', text: 'lo wor' }]);
    const partial = await until(() =>
      feed.getSnapshot().events.at(-1)?.type === 'text_delta' &&
      (feed.getSnapshot().events.at(-1) as { text: string }).text === 'Hello wor'
        ? feed.getSnapshot()
        : undefined,
    );
    expect(partial.events.map(brief)).toEqual(['user go', 'text_delta Hello wor']);
    expect(Object.isFrozen(partial)).toBe(true);
    expect(Object.isFrozen(partial.events)).toBe(true);
    appendEvents(log, [{ type: 'text', text: 'Hello world.' }]);
    const whole = await until(() =>
      feed.getSnapshot().events.at(-1)?.type === 'text' ? feed.getSnapshot() : undefined,
    );
    expect(whole.events.map(brief)).toEqual(['user go', 'text Hello world.']);
    expect(partial.events.map(brief)).toEqual(['user go', 'text_delta Hello wor']); // the old snapshot did not change
  });

  it('merges the transcript of the interactive turns, and follows what claude appends', async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'klaude-livefeed-'));
    const transcript = path.join(dir, 'claude.jsonl');
    copyFileSync(path.join(REPO_ROOT, 'test/fixtures/transcripts/checked-out-agent.jsonl'), transcript);
    const log = path.join(dir, 'b.ndjson');
    const typed = Date.parse('2026-11-23T18:52:57.451Z');
    appendEvents(
      log,
      [
        { type: 'user', text: 'child-task-5', source: 'start' },
        { type: 'text', text: 'Reply to: child-task-5' },
      ],
      typed - 6000,
    );
    const feed = new LogFeed({ transcripts: (id) => (id === 'b' ? [transcript] : []) });
    open.push(feed);
    feed.select('b', log);
    const first = await until(() => (feed.getSnapshot().loaded ? feed.getSnapshot() : undefined));
    expect(first.events.map(brief)).toEqual([
      'user child-task-5',
      'text Reply to: child-task-5',
      'user after-checkout-9',
      'text Reply to: after-checkout-9',
    ]);
    // claude writes the next interactive turn.
    const line = JSON.parse(
      readFileSync(transcript, 'utf8')
        .trim()
        .split('\n')
        .find((l) => l.includes('"promptSource":"typed"'))!,
    );
    appendFileSync(
      transcript,
      `${JSON.stringify({ ...line, timestamp: new Date().toISOString(), message: { role: 'user', content: 'one more' } })}\n`,
    );
    await until(() =>
      feed.getSnapshot().events.at(-1)?.type === 'user' &&
      (feed.getSnapshot().events.at(-1) as { text: string }).text === 'one more'
        ? true
        : undefined,
    );
  });

  it("shows streamed pieces on the dashboard clock's tick while it runs (one frame for both)", async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'klaude-livefeed-'));
    const log = path.join(dir, 'c.ndjson');
    appendEvents(log, [{ type: 'user', text: 'go', source: 'start' }]);
    // A running clock that ticks only when told (its own fallback redraw is 1.2 s away).
    class Beat extends Emitter {
      running = true;
      tick(): void {
        this.emit();
      }
    }
    const beat = new Beat();
    let seen = '';
    const feed: LogFeed = new LogFeed({
      beat,
      onAppend: (e) => {
        if (e.type !== 'text_delta' || e.text !== 'lo wor') return;
        // Right after the piece arrives, long before any timer: the tick shows it at once.
        setImmediate(() => {
          const before = feed.getSnapshot().events.at(-1);
          beat.tick();
          const after = feed.getSnapshot().events.at(-1);
          seen = `${before?.type}|${after?.type} ${'text' in after! ? after.text : ''}`;
        });
      },
    });
    open.push(feed);
    feed.select('c', log);
    await until(() => (feed.getSnapshot().loaded ? true : undefined));
    appendEvents(log, [
      { type: 'text_delta', text: 'Hel' },
      { type: 'text_delta', text: 'lo wor' },
    ]);
    await until(() => seen || undefined);
    expect(seen).toBe('user|text_delta Hello wor');
  });
});

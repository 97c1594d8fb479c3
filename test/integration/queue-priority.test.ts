// Priorities in the run queue, in a real SQLite file: higher first, first in first out within a
// level, a new high agent ahead of waiting normal ones, over-budget entries passed by as before,
// and `klaude queue move` semantics (place in the whole queue takes the neighbours' priority;
// --priority alone keeps the time order; with --priority, places are within that level).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/client.js';
import { setBudget } from '../../src/db/repos/budgets.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { admit, queuePosition, takeRunnable, type RunLimits } from '../../src/db/repos/queue.js';
import { moveQueued, queuedInOrder } from '../../src/db/repos/queue-order.js';
import { listSessionRows } from '../../src/db/repos/listing.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { priorityLevel, type PriorityName } from '../../src/core/priority.js';

const P = 'b'.repeat(24);
let root: string;
let db: Db;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-queue-prio-')));
  db = openDb(path.join(root, 'k'));
  ensureProject(db, { hash: P, rootPath: '/proj' });
});
afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

const one: RunLimits = { global: 1, perRuntime: {} };

function startOne(name: string, priority: PriorityName, at: number): { id: string; name: string; position: number } {
  const s = createSession(db, {
    projectId: P,
    type: 'general',
    runtime: 'claude',
    status: 'pending',
    title: name,
    priority: priorityLevel(priority),
  });
  return { id: s.id, name, position: admit(db, s.id, 'claude', one, at).position };
}

const order = (): string[] => queuedInOrder(db).map((e) => e.title!);

describe('queue priority', () => {
  it('serves higher first, FIFO within a level; places say so in every listing', () => {
    const runner = startOne('runner', 'normal', 1000); // takes the one slot
    expect(runner.position).toBe(0);
    const q = [
      startOne('n1', 'normal', 1001),
      startOne('l1', 'low', 1002),
      startOne('h1', 'high', 1003),
      startOne('n2', 'normal', 1004),
      startOne('h2', 'high', 1005),
    ];
    // The place each got when it came: a high one goes ahead of the normal and low ones waiting.
    expect(q.map((x) => x.position)).toEqual([1, 2, 1, 3, 2]);
    expect(order()).toEqual(['h1', 'h2', 'n1', 'n2', 'l1']);
    expect(q.map((x) => queuePosition(db, x.id))).toEqual([3, 5, 1, 4, 2]);
    const listed = new Map(listSessionRows(db, { projectId: P }).map((r) => [r.title, r]));
    expect(['h1', 'h2', 'n1', 'n2', 'l1'].map((t) => listed.get(t)!.queuePosition)).toEqual([1, 2, 3, 4, 5]);
    expect(listed.get('h1')!.priority).toBe(1);
    // One slot: they start one at a time in that order.
    const started: string[] = [];
    let last = runner.id;
    for (let i = 0; i < 5; i++) {
      updateSession(db, last, { status: 'done' });
      const [id] = takeRunnable(db, one);
      last = id!;
      started.push(q.find((x) => x.id === id)!.name);
    }
    expect(started).toEqual(['h1', 'h2', 'n1', 'n2', 'l1']);
  });

  it('an over-budget entry is passed by whatever its priority; the rest keep their order', () => {
    const runner = startOne('runner', 'normal', 1000);
    const h = startOne('h', 'high', 1001);
    const n = startOne('n', 'normal', 1002);
    setBudget(db, h.id, 0.01);
    updateSession(db, h.id, { costUsd: 1 });
    updateSession(db, runner.id, { status: 'done' });
    expect(takeRunnable(db, one)).toEqual([n.id]);
    expect(order()).toEqual(['h']);
  });

  it('move: to a place in the whole queue, taking the priority of where it lands', () => {
    startOne('runner', 'normal', 1000);
    const [h1, , n1, n2, l1] = [
      startOne('h1', 'high', 1001),
      startOne('h2', 'high', 1002),
      startOne('n1', 'normal', 1003),
      startOne('n2', 'normal', 1004),
      startOne('l1', 'low', 1005),
    ];
    expect(order()).toEqual(['h1', 'h2', 'n1', 'n2', 'l1']);
    // n2 to the top: ahead of every high one, so it is high now.
    expect(moveQueued(db, n2!.id, { kind: 'top' }, null)).toMatchObject({
      from: 4,
      to: 1,
      priority: 'high',
      was: 'normal',
    });
    expect(order()).toEqual(['n2', 'h1', 'h2', 'n1', 'l1']);
    // l1 to #4: between the last high and n1 → normal, before n1.
    expect(moveQueued(db, l1!.id, { kind: 'to', position: 4 }, null)).toMatchObject({ to: 4, priority: 'normal' });
    expect(order()).toEqual(['n2', 'h1', 'h2', 'l1', 'n1']);
    // h1 to the bottom: behind the last normal one → normal.
    expect(moveQueued(db, h1!.id, { kind: 'bottom' }, null)).toMatchObject({ to: 5, priority: 'normal' });
    expect(order()).toEqual(['n2', 'h2', 'l1', 'n1', 'h1']);
    // Within its own level a move keeps its priority.
    expect(moveQueued(db, n1!.id, { kind: 'to', position: 3 }, null)).toMatchObject({
      to: 3,
      priority: 'normal',
      was: 'normal',
    });
    expect(order()).toEqual(['n2', 'h2', 'n1', 'l1', 'h1']);
    // A new normal agent still goes after every normal one already waiting.
    startOne('n3', 'normal', 2000);
    expect(order()).toEqual(['n2', 'h2', 'n1', 'l1', 'h1', 'n3']);
  });

  it('move --priority: alone by its time of queueing, with a place among that level', () => {
    startOne('runner', 'normal', 1000);
    const n1 = startOne('n1', 'normal', 1001);
    startOne('h1', 'high', 1002);
    const n2 = startOne('n2', 'normal', 1003);
    startOne('h2', 'high', 1004);
    expect(order()).toEqual(['h1', 'h2', 'n1', 'n2']);
    // Queued before both high ones: high, it goes first.
    expect(moveQueued(db, n1.id, null, priorityLevel('high'))).toMatchObject({ to: 1, priority: 'high' });
    expect(order()).toEqual(['n1', 'h1', 'h2', 'n2']);
    expect(moveQueued(db, n2.id, { kind: 'to', position: 2 }, priorityLevel('high'))).toMatchObject({ to: 2 });
    expect(order()).toEqual(['n1', 'n2', 'h1', 'h2']);
    expect(moveQueued(db, n2.id, { kind: 'bottom' }, priorityLevel('low'))).toMatchObject({ to: 4, priority: 'low' });
    expect(order()).toEqual(['n1', 'h1', 'h2', 'n2']);
  });

  it('refuses to move what is not queued', () => {
    const runner = startOne('runner', 'normal', 1000);
    expect(() => moveQueued(db, runner.id, { kind: 'top' }, null)).toThrow(/not in the run queue/);
  });
});

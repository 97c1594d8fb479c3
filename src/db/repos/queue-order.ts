/**
 * The run queue's order: higher priority first, then each entry's order key (its `queue_order`,
 * set to the time it was queued; older rows without one use `queued_at`), then id. One queue for
 * the whole klaude home, as the run limits are. `klaude queue move` changes the order here, in one
 * transaction: the entry's priority follows from where it lands, and the order keys of that level
 * are dealt out again in the new order (the same set of keys, so an agent queued later still goes
 * after every one of them).
 */
import { priorityName, type PriorityName } from '../../core/priority.js';
import { tx, type Db } from '../client.js';
import type { HasSqlite } from '../connection.js';
import { KlaudeError } from '../../lib/errors.js';
import { queueAheadOrAt, queueOrderBy } from './queue-sql.js';

export interface QueuedEntry {
  id: string;
  projectId: string;
  runtime: string;
  type: string;
  priority: number;
  /** The order key within its priority. */
  order: number;
  queuedAt: number | null;
  title: string | null;
  name: string | null;
  prompt: string | null;
}

/** Every queued session, in the order the queue serves them. */
export function queuedInOrder(db: HasSqlite): QueuedEntry[] {
  return db.sqlite
    .prepare(
      `SELECT s.id, s.project_id AS projectId, s.runtime, s.type, s.priority,
         COALESCE(s.queue_order, s.queued_at, 0) AS "order", s.queued_at AS queuedAt, s.title, s.name,
         substr(s.prompt, 1, 400) AS prompt
       FROM sessions s WHERE s.status = 'queued' ORDER BY ${queueOrderBy('s')}`,
    )
    .all() as QueuedEntry[];
}

/** 1-based place in the queue (0 when not queued). */
export function queuePosition(db: HasSqlite, sessionId: string): number {
  return (
    (db.sqlite
      .prepare(
        `SELECT COUNT(*) FROM sessions q JOIN sessions me ON me.id = ? AND me.status = 'queued'
         WHERE q.status = 'queued' AND ${queueAheadOrAt('q', 'me')}`,
      )
      .pluck()
      .get(sessionId) as number) ?? 0
  );
}

/** Where `klaude queue move` puts an entry. */
export type QueueTarget =
  | { kind: 'top' }
  | { kind: 'bottom' }
  /** 1-based. */
  | { kind: 'to'; position: number };

export interface QueueMove {
  id: string;
  from: number;
  to: number;
  priority: PriorityName;
  /** Its priority before the move (differs when it moved into another level). */
  was: PriorityName;
}

/**
 * Move a queued entry. `level` (from `--priority`) sets its priority and makes `target` a place
 * among the entries of that priority; without it `target` is a place in the whole queue and the
 * entry takes the priority of the entries it lands among. E_SESSION_NOT_QUEUED when it left the queue.
 */
export function moveQueued(db: Db, id: string, target: QueueTarget | null, level: number | null): QueueMove {
  return tx(db, () => {
    const all = queuedInOrder(db);
    const from = all.findIndex((e) => e.id === id);
    const me = all[from];
    if (!me)
      throw new KlaudeError('E_SESSION_NOT_QUEUED', `${id.slice(-8)} is not in the run queue`, {
        hint: '`klaude queue` lists what waits',
      });
    const rest = all.filter((e) => e.id !== id);
    let priority = level ?? me.priority;
    let at: number;
    let peers: QueuedEntry[];
    if (level !== null) {
      // A place among the entries of that priority; none given: where its own order key puts it.
      peers = rest.filter((e) => e.priority === level);
      at = target ? placeIndex(target, peers.length) : byOwnKey(peers, me);
    } else {
      const place = placeIndex(target ?? { kind: 'to', position: from + 1 }, rest.length);
      const before = rest[place - 1];
      const after = rest[place];
      // Higher first: it takes the level of its neighbours when it lands outside its own.
      if (before && priority > before.priority) priority = before.priority;
      if (after && priority < after.priority) priority = after.priority;
      peers = rest.filter((e) => e.priority === priority);
      // Its place among its new peers: after those of them that stay ahead of it.
      at = rest.slice(0, place).filter((e) => e.priority === priority).length;
    }
    const order = peers.slice();
    order.splice(at, 0, me);
    dealKeys(db, order, id, priority);
    const to = queuedInOrder(db).findIndex((e) => e.id === id) + 1;
    return { id, from: from + 1, to, priority: priorityName(priority), was: priorityName(me.priority) };
  });
}

/** 0-based index in a line of `length` others for a target. */
function placeIndex(t: QueueTarget, length: number): number {
  if (t.kind === 'top') return 0;
  if (t.kind === 'bottom') return length;
  return Math.max(0, Math.min(length, Math.floor(t.position) - 1));
}

/** Where an entry's own order key puts it among `peers`. */
function byOwnKey(peers: readonly QueuedEntry[], me: QueuedEntry): number {
  const i = peers.findIndex((e) => e.order > me.order || (e.order === me.order && e.id > me.id));
  return i === -1 ? peers.length : i;
}

/**
 * The entries of one level in their new order get that level's order keys, sorted and made
 * distinct (a key equal to the one before moves up by one), so ids never decide; `id` gets the level.
 */
function dealKeys(db: HasSqlite, line: QueuedEntry[], id: string, priority: number): void {
  const keys = line.map((e) => e.order).sort((a, b) => a - b);
  for (let i = 1; i < keys.length; i++) if (keys[i]! <= keys[i - 1]!) keys[i] = keys[i - 1]! + 1;
  const set = db.sqlite.prepare('UPDATE sessions SET queue_order = ?, priority = ? WHERE id = ?');
  line.forEach((e, i) => set.run(keys[i]!, e.id === id ? priority : e.priority, e.id));
}

/**
 * The run queue (config `agents.maxRunning`, `runtimes.<name>.maxRunning`) in SQL: which headless
 * agents hold a run slot, which queued ones may start now (higher priority first, first in first
 * out within a priority: queue-order.ts; taken in one IMMEDIATE transaction so two processes
 * ending runs at once never start the same one twice), a
 * runtime's lowered limit after it reported rate limiting, and whose kept launch environment may
 * go. Starting the taken ones is the caller's (src/agent-ops/queue.ts).
 */
import { isTerminal, type SessionStatus } from '../../core/status.js';
import { tx, type Db } from '../client.js';
import type { HasSqlite } from '../connection.js';
import { budgetReached } from './budgets.js';
import { queuePosition } from './queue-order.js';
import { queueOrderBy } from './queue-sql.js';

export { queuePosition };

/** Configured limits; 0 = no limit. */
export interface RunLimits {
  global: number;
  perRuntime: Record<string, number>;
}

export interface LoweredLimit {
  runtime: string;
  maxRunning: number;
  until: number;
  reason: string | null;
}

/**
 * Headless agents holding a slot: started (pending), in a turn (running, waiting), by runtime. A
 * run that died and waits for the person (`agents.recover: ask`) holds none.
 */
function slotsInUse(db: HasSqlite): Map<string, number> {
  const rows = db.sqlite
    .prepare(
      `SELECT s.runtime, COUNT(*) AS n FROM sessions s
       WHERE s.type != 'tui' AND s.status IN ('pending', 'running', 'waiting')
         AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.session_id = s.id AND c.ask_cause IS NOT NULL)
       GROUP BY s.runtime`,
    )
    .all() as { runtime: string; n: number }[];
  return new Map(rows.map((r) => [r.runtime, r.n]));
}

/** Run slots held now, by runtime (what `klaude queue` shows beside the limits). */
export const slotsHeld = (db: HasSqlite): Map<string, number> => slotsInUse(db);

/** Lowered limits still in force at `now`, by runtime. */
export function loweredLimits(db: HasSqlite, now: number): Map<string, LoweredLimit> {
  const rows = db.sqlite
    .prepare('SELECT runtime, max_running AS maxRunning, until, reason FROM runtime_limits WHERE until > ?')
    .all(now) as LoweredLimit[];
  return new Map(rows.map((r) => [r.runtime, r]));
}

/** Whether any limit applies at all (no limit configured and none lowered: the queue is skipped). */
export function queueInForce(db: HasSqlite, limits: RunLimits, now: number): boolean {
  if (limits.global > 0 || Object.values(limits.perRuntime).some((n) => n > 0)) return true;
  if (loweredLimits(db, now).size > 0) return true;
  return db.sqlite.prepare("SELECT 1 FROM sessions WHERE status = 'queued' LIMIT 1").get() !== undefined;
}

function runtimeLimit(limits: RunLimits, lowered: Map<string, LoweredLimit>, runtime: string): number {
  const configured = limits.perRuntime[runtime] ?? 0;
  const low = lowered.get(runtime)?.maxRunning;
  const a = configured > 0 ? configured : Infinity;
  return Math.min(a, low ?? Infinity);
}

/**
 * A queued session whose tree has reached a spend limit (its own or an ancestor's) waits until the
 * limit is raised (`klaude budget` pumps the queue): it neither starts nor holds up the others.
 */
export const overBudget = (db: HasSqlite, sessionId: string): boolean => budgetReached(db, sessionId) !== null;

/**
 * Take the queued sessions that fit now, in the queue's order: each becomes `pending` (the caller
 * starts its runtime). The global limit is strict (nobody passes the head); a runtime at its own
 * limit lets queued agents of other runtimes go by; an agent over budget is passed by.
 */
export function takeRunnable(db: Db, limits: RunLimits, now: number = Date.now()): string[] {
  return tx(db, () => {
    const queued = db.sqlite
      .prepare(`SELECT s.id, s.runtime FROM sessions s WHERE s.status = 'queued' ORDER BY ${queueOrderBy('s')}`)
      .all() as { id: string; runtime: string }[];
    if (queued.length === 0) return [];
    const used = slotsInUse(db);
    const lowered = loweredLimits(db, now);
    let total = [...used.values()].reduce((a, b) => a + b, 0);
    const globalMax = limits.global > 0 ? limits.global : Infinity;
    const taken: string[] = [];
    const take = db.sqlite.prepare(
      "UPDATE sessions SET status = 'pending', updated_at = ? WHERE id = ? AND status = 'queued'",
    );
    // The order agents leave the queue, kept (events ids are strictly increasing).
    const note = db.sqlite.prepare(
      "INSERT INTO events (project_id, klaude_session_id, kind, payload, created_at) SELECT project_id, id, 'agent.dequeued', NULL, ? FROM sessions WHERE id = ?",
    );
    for (const q of queued) {
      if (total >= globalMax) break;
      if ((used.get(q.runtime) ?? 0) >= runtimeLimit(limits, lowered, q.runtime)) continue;
      if (overBudget(db, q.id)) continue;
      if (take.run(now, q.id).changes === 1) {
        note.run(now, q.id);
        taken.push(q.id);
        total++;
        used.set(q.runtime, (used.get(q.runtime) ?? 0) + 1);
      }
    }
    return taken;
  });
}

/**
 * Admit a new session: `pending` when a slot is free and no queued agent of its priority or higher
 * could take it first (it may start now), else `queued` with its place (behind the queued agents
 * of its priority and above, ahead of lower ones); always `queued` when its tree is over budget.
 * One transaction with the count.
 */
export function admit(
  db: Db,
  sessionId: string,
  runtime: string,
  limits: RunLimits,
  now: number = Date.now(),
): { queued: boolean; position: number } {
  return tx(db, () => {
    const mine =
      (db.sqlite.prepare('SELECT priority FROM sessions WHERE id = ?').pluck().get(sessionId) as number | undefined) ??
      0;
    const all = db.sqlite
      .prepare("SELECT id, runtime FROM sessions WHERE status = 'queued' AND priority >= ?")
      .all(mine) as { id: string; runtime: string }[];
    // Agents held over budget would not take the slot: they are not ahead.
    const queued = all.filter((q) => !overBudget(db, q.id)).map((q) => q.runtime);
    const used = slotsInUse(db);
    used.set(runtime, (used.get(runtime) ?? 1) - 1); // this session is pending already: not counted
    const lowered = loweredLimits(db, now);
    const room = (rt: string): boolean => (used.get(rt) ?? 0) < runtimeLimit(limits, lowered, rt);
    const total = [...used.values()].reduce((a, b) => a + b, 0);
    const globalMax = limits.global > 0 ? limits.global : Infinity;
    // Queued agents that could take the slot come first: those of this runtime, and any whose runtime has room.
    const ahead = queued.some((rt) => rt === runtime || room(rt));
    const fits = !ahead && total < globalMax && room(runtime) && !overBudget(db, sessionId);
    if (fits) return { queued: false, position: 0 };
    db.sqlite
      .prepare("UPDATE sessions SET status = 'queued', queued_at = ?, queue_order = ?, updated_at = ? WHERE id = ?")
      .run(now, now, now, sessionId);
    return { queued: true, position: queuePosition(db, sessionId) };
  });
}

/** Cancel a session still queued (interrupt before it ran). False when it already left the queue. */
export function cancelQueued(db: Db, sessionId: string, now: number = Date.now()): boolean {
  return (
    db.sqlite
      .prepare(
        "UPDATE sessions SET status = 'cancelled', ended_at = ?, updated_at = ? WHERE id = ? AND status = 'queued'",
      )
      .run(now, now, sessionId).changes === 1
  );
}

/**
 * The runtime reported rate limiting: its limit drops to half of what it runs now (at least 1)
 * until `until`. A second report while lowered halves again and extends the window.
 */
export function lowerLimit(
  db: Db,
  runtime: string,
  limits: RunLimits,
  until: number,
  reason: string,
  now: number = Date.now(),
): LoweredLimit {
  return tx(db, () => {
    const running = slotsInUse(db).get(runtime) ?? 1;
    const base = Math.min(
      running,
      runtimeLimit(limits, loweredLimits(db, now), runtime),
      limits.global > 0 ? limits.global : Infinity,
    );
    const maxRunning = Math.max(1, Math.floor(base / 2));
    db.sqlite
      .prepare(
        `INSERT INTO runtime_limits (runtime, max_running, until, reason, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(runtime) DO UPDATE SET max_running = excluded.max_running, until = excluded.until, reason = excluded.reason, updated_at = excluded.updated_at`,
      )
      .run(runtime, maxRunning, until, reason, now);
    return { runtime, maxRunning, until, reason };
  });
}

/**
 * Of `ids`, the sessions no run will be launched for again (their kept launch environment can
 * go, src/agent-ops/launch-env.ts): gone, or ended (done, failed, interrupted, cancelled) and not
 * cut off mid-turn in a turn not yet recovered, which recovery may still resume (`recoverable`
 * false: `agents.recover` is off, none will be).
 */
export function launchesOver(db: HasSqlite, ids: readonly string[], recoverable: boolean): string[] {
  const rows = db.sqlite
    .prepare(
      `SELECT s.id, s.status, c.in_turn AS inTurn, c.turn, c.recovered_turn AS recoveredTurn
       FROM sessions s LEFT JOIN checkpoints c ON c.session_id = s.id
       WHERE s.id IN (SELECT value FROM json_each(?))`,
    )
    .all(JSON.stringify(ids)) as {
    id: string;
    status: SessionStatus;
    inTurn: number | null;
    turn: number | null;
    recoveredTurn: number | null;
  }[];
  const live = new Set<string>();
  for (const r of rows) {
    const midTurn = recoverable && r.inTurn === 1 && r.recoveredTurn !== r.turn;
    if (!isTerminal(r.status) || midTurn) live.add(r.id);
  }
  return ids.filter((id) => !live.has(id));
}

/**
 * Marking rows whose process is gone (see src/ownership/reconcile.ts for when). The liveness
 * test is passed in: the DB layer doesn't probe processes itself.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { tx, type Db } from '../client.js';
import { instances, runtimeProcess, sessions, type InstanceRow, type ProcessRow } from '../schema.js';

export interface ReconcileResult {
  staleInstances: string[];
  lostProcesses: number;
  sessionsEnded: string[];
  /** Live processes whose owner is gone, signalled to end (see ownership/reconcile.ts). */
  orphansSignalled: number;
}

/**
 * Open rows of processes that must not outlive their owner: a foreground claude whose supervisor
 * instance is no longer running, a runtime's CLI whose runtime row has ended. Whether they still
 * run is for the caller to judge (pid + start time).
 */
export function ownerlessRows(db: Db): ProcessRow[] {
  const open = db.orm.select().from(runtimeProcess).where(isNull(runtimeProcess.exitedAt)).all();
  const out: ProcessRow[] = [];
  for (const p of open) {
    if (p.kind === 'claude' && p.instanceId) {
      const inst = db.orm.select().from(instances).where(eq(instances.id, p.instanceId)).get();
      if (inst && inst.status !== 'running') out.push(p);
    } else if (p.kind === 'cli' && p.parentProcessId !== null) {
      const owner = db.orm.select().from(runtimeProcess).where(eq(runtimeProcess.id, p.parentProcessId)).get();
      if (!owner || owner.exitedAt !== null) out.push(p);
    }
  }
  return out;
}

/** Which of the recorded processes still run (pid + start time; start null: by the pid alone). */
export type LiveProbe = (rows: readonly { pid: number; pidStart: number | null }[]) => boolean[];

interface Dead {
  instances: InstanceRow[];
  processes: ProcessRow[];
}

/**
 * Rows of processes that are gone: a first look without the write lock (most calls find nothing
 * and take no lock), then the look that decides, and the marking, in one IMMEDIATE transaction. So
 * a row whose owner ended it meanwhile, with its real exit code, is never re-marked LOST.
 */
export function markDeadRows(db: Db, alive: LiveProbe, opts: { projectId?: string } = {}): ReconcileResult {
  const result: ReconcileResult = { staleInstances: [], lostProcesses: 0, sessionsEnded: [], orphansSignalled: 0 };
  const first = findDead(db, alive, opts);
  if (first.instances.length === 0 && first.processes.length === 0) return result;
  tx(db, () => {
    const dead = findDead(db, alive, opts);
    const now = Date.now();
    result.staleInstances = markStale(db, dead.instances, now);
    const touched = new Set<string>();
    for (const p of dead.processes) {
      const ended = db.orm
        .update(runtimeProcess)
        .set({ exitedAt: now, isCurrent: 0, signal: 'LOST' })
        .where(and(eq(runtimeProcess.id, p.id), isNull(runtimeProcess.exitedAt)))
        .run().changes;
      result.lostProcesses += ended;
      if (ended) touched.add(p.klaudeSessionId);
    }
    result.sessionsEnded = endSessionsOf(db, touched, now);
  });
  return result;
}

function findDead(db: Db, alive: LiveProbe, opts: { projectId?: string }): Dead {
  const running = db.orm
    .select()
    .from(instances)
    .where(
      opts.projectId
        ? and(eq(instances.status, 'running'), eq(instances.projectId, opts.projectId))
        : eq(instances.status, 'running'),
    )
    .all();
  const open = db.orm.select().from(runtimeProcess).where(isNull(runtimeProcess.exitedAt)).all();
  // Instances record no start time: they are judged by the pid alone (and only marked, never signalled).
  const instLive = alive(running.map((i) => ({ pid: i.pid, pidStart: null })));
  const procLive = alive(open);
  return {
    instances: running.filter((_, i) => !instLive[i]),
    processes: open.filter((_, i) => !procLive[i]),
  };
}

function markStale(db: Db, dead: readonly InstanceRow[], now: number): string[] {
  if (dead.length === 0) return [];
  const ids = dead.map((i) => i.id);
  db.orm
    .update(instances)
    .set({ status: 'stale', endedAt: now })
    .where(and(inArray(instances.id, ids), eq(instances.status, 'running')))
    .run();
  return ids;
}

/**
 * A session whose processes are all gone can't be running: a TUI session is simply over (and
 * resumable); an agent cut off mid-turn was interrupted.
 */
function endSessionsOf(db: Db, touched: ReadonlySet<string>, now: number): string[] {
  const ended: string[] = [];
  for (const id of touched) {
    const alive = db.orm
      .select({ id: runtimeProcess.id })
      .from(runtimeProcess)
      .where(and(eq(runtimeProcess.klaudeSessionId, id), isNull(runtimeProcess.exitedAt)))
      .get();
    if (alive) continue;
    const s = db.orm.select().from(sessions).where(eq(sessions.id, id)).get();
    if (!s || ['done', 'failed', 'interrupted'].includes(s.status)) continue;
    const status = s.type === 'tui' || s.status === 'idle' ? 'done' : 'interrupted';
    db.orm.update(sessions).set({ status, endedAt: now, updatedAt: now }).where(eq(sessions.id, id)).run();
    ended.push(id);
  }
  return ended;
}

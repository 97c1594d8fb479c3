/**
 * Marking rows whose process is gone (see src/ownership/reconcile.ts for when). The liveness
 * test is passed in: the DB layer doesn't probe processes itself.
 */
import { and, eq, inArray, isNull } from 'drizzle-orm';
import { tx, type Db } from '../client.js';
import { instances, runtimeProcess, sessions, type ProcessRow } from '../schema.js';

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

/** `isAlive(pid, start)`: start is the recorded start time (null: unknown, judge by pid alone). */
export function markDeadRows(
  db: Db,
  isAlive: (pid: number, start: number | null) => boolean,
  opts: { projectId?: string } = {},
): ReconcileResult {
  const result: ReconcileResult = { staleInstances: [], lostProcesses: 0, sessionsEnded: [], orphansSignalled: 0 };
  const running = db.orm
    .select()
    .from(instances)
    .where(
      opts.projectId
        ? and(eq(instances.status, 'running'), eq(instances.projectId, opts.projectId))
        : eq(instances.status, 'running'),
    )
    .all()
    .filter((i) => !isAlive(i.pid, null));
  const open = db.orm
    .select()
    .from(runtimeProcess)
    .where(isNull(runtimeProcess.exitedAt))
    .all()
    .filter((p) => !isAlive(p.pid, p.pidStart));
  if (running.length === 0 && open.length === 0) return result;
  const now = Date.now();
  tx(db, () => {
    if (running.length) {
      db.orm
        .update(instances)
        .set({ status: 'stale', endedAt: now })
        .where(
          inArray(
            instances.id,
            running.map((i) => i.id),
          ),
        )
        .run();
      result.staleInstances = running.map((i) => i.id);
    }
    const touched = new Set<string>();
    for (const p of open) {
      db.orm
        .update(runtimeProcess)
        .set({ exitedAt: now, isCurrent: 0, signal: 'LOST' })
        .where(eq(runtimeProcess.id, p.id))
        .run();
      touched.add(p.klaudeSessionId);
    }
    result.lostProcesses = open.length;
    // A session whose processes are all gone can't be running: a TUI session is simply
    // over (and resumable); an agent cut off mid-turn was interrupted.
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
      result.sessionsEnded.push(id);
    }
  });
  return result;
}

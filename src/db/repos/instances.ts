import { and, asc, eq, sql, type SQL } from 'drizzle-orm';
import { newId } from '../ids.js';
import type { Db } from '../client.js';
import { instances, type InstanceMode, type InstanceRow, type InstanceStatus } from '../schema.js';

export type { InstanceRow };

export interface NewInstance {
  id?: string;
  projectId: string;
  pid: number;
  socketPath: string;
  cwd: string;
  mode: InstanceMode;
  klaudeVersion?: string | null;
  rootSessionId?: string | null;
}

/** Register a running supervisor (status 'running'). The id is a new ULID unless given. */
export function createInstance(db: Db, i: NewInstance): InstanceRow {
  return db.orm
    .insert(instances)
    .values({ ...i, id: i.id ?? newId(), status: 'running', startedAt: Date.now() })
    .returning()
    .get();
}

export function getInstance(db: Db, id: string): InstanceRow | undefined {
  return db.orm.select().from(instances).where(eq(instances.id, id)).get();
}

/** Oldest first. */
export function listInstances(db: Db, f: { projectId?: string; status?: InstanceStatus } = {}): InstanceRow[] {
  const where: SQL[] = [];
  if (f.projectId) where.push(eq(instances.projectId, f.projectId));
  if (f.status) where.push(eq(instances.status, f.status));
  return db.orm
    .select()
    .from(instances)
    .where(and(...where))
    .orderBy(asc(instances.startedAt), asc(instances.id))
    .all();
}

/**
 * Mark an instance ended ('exited' on a clean exit, 'stale' when recovery finds its pid dead).
 * Keeps the first ended_at when called twice.
 */
export function endInstance(
  db: Db,
  id: string,
  e: { status: Exclude<InstanceStatus, 'running'>; exitCode?: number | null },
): InstanceRow | undefined {
  return db.orm
    .update(instances)
    .set({
      status: e.status,
      exitCode: e.exitCode ?? sql`${instances.exitCode}`,
      endedAt: sql`coalesce(${instances.endedAt}, ${Date.now()})`,
    })
    .where(eq(instances.id, id))
    .returning()
    .get();
}

/** Point the instance at its root (TUI) session; null clears it. */
export function setInstanceRoot(db: Db, id: string, sessionId: string | null): void {
  db.orm.update(instances).set({ rootSessionId: sessionId }).where(eq(instances.id, id)).run();
}

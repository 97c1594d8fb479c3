import { and, desc, eq, inArray, isNull, ne } from 'drizzle-orm';
import { processStartTime } from '../../lib/process.js';
import { tx, type Db } from '../client.js';
import { runtimeProcess, sessions, type ProcessKind, type ProcessRow } from '../schema.js';

export type { ProcessRow };

export interface NewProcess {
  klaudeSessionId: string;
  instanceId?: string | null;
  pid: number;
  kind: ProcessKind;
  /** Default true: the new process replaces the session's current one of the same kind. */
  isCurrent?: boolean;
  /** Start time (lib/process.ts processStartTime); default: read now, while the pid is surely this process. */
  pidStart?: number | null;
  /** The owning process's row (a runtime's 'cli' child). */
  parentProcessId?: number | null;
}

/**
 * Record a started process. When current (the default), other current rows of the same session and
 * kind stop being current (they are not marked exited: only endProcess knows how they ended).
 */
export function recordProcess(db: Db, p: NewProcess): ProcessRow {
  const isCurrent = p.isCurrent ?? true;
  // Read before the write lock is taken: where there is no /proc it costs a `ps` run.
  const pidStart = p.pidStart !== undefined ? p.pidStart : processStartTime(p.pid);
  return tx(db, () => {
    const row = db.orm
      .insert(runtimeProcess)
      .values({
        klaudeSessionId: p.klaudeSessionId,
        instanceId: p.instanceId ?? null,
        pid: p.pid,
        pidStart,
        parentProcessId: p.parentProcessId ?? null,
        kind: p.kind,
        isCurrent: isCurrent ? 1 : 0,
        startedAt: Date.now(),
      })
      .returning()
      .get();
    if (isCurrent) {
      db.orm
        .update(runtimeProcess)
        .set({ isCurrent: 0 })
        .where(
          and(
            eq(runtimeProcess.klaudeSessionId, p.klaudeSessionId),
            eq(runtimeProcess.kind, p.kind),
            eq(runtimeProcess.isCurrent, 1),
            ne(runtimeProcess.id, row.id),
          ),
        )
        .run();
    }
    return row;
  });
}

/**
 * Mark a process exited (by row id) and no longer current. A second call is a no-op, so the first
 * observer's exit code/signal wins.
 */
export function endProcess(
  db: Db,
  id: number,
  e: { exitCode?: number | null; signal?: string | null } = {},
): ProcessRow | undefined {
  return db.orm
    .update(runtimeProcess)
    .set({ exitedAt: Date.now(), exitCode: e.exitCode ?? null, signal: e.signal ?? null, isCurrent: 0 })
    .where(and(eq(runtimeProcess.id, id), isNull(runtimeProcess.exitedAt)))
    .returning()
    .get();
}

/** Current, not-yet-exited processes of a session (optionally of one kind), newest first. */
export function currentProcesses(db: Db, sessionId: string, kind?: ProcessKind): ProcessRow[] {
  return db.orm
    .select()
    .from(runtimeProcess)
    .where(
      and(
        eq(runtimeProcess.klaudeSessionId, sessionId),
        eq(runtimeProcess.isCurrent, 1),
        isNull(runtimeProcess.exitedAt),
        kind ? eq(runtimeProcess.kind, kind) : undefined,
      ),
    )
    .orderBy(desc(runtimeProcess.id))
    .all();
}

/** The newest process of a session of one kind, ended or not (who ran its last run). */
export function lastProcess(db: Db, sessionId: string, kind: ProcessKind): ProcessRow | undefined {
  return db.orm
    .select()
    .from(runtimeProcess)
    .where(and(eq(runtimeProcess.klaudeSessionId, sessionId), eq(runtimeProcess.kind, kind)))
    .orderBy(desc(runtimeProcess.id))
    .limit(1)
    .get();
}

/** Current, not-yet-exited processes of one kind across a project's sessions (e.g. its PTY hosts), oldest first. */
export function openProcessesOfProject(db: Db, projectId: string, kind: ProcessKind): ProcessRow[] {
  return db.orm
    .select({ p: runtimeProcess })
    .from(runtimeProcess)
    .innerJoin(sessions, eq(sessions.id, runtimeProcess.klaudeSessionId))
    .where(
      and(
        eq(sessions.projectId, projectId),
        eq(runtimeProcess.kind, kind),
        eq(runtimeProcess.isCurrent, 1),
        isNull(runtimeProcess.exitedAt),
      ),
    )
    .orderBy(runtimeProcess.id)
    .all()
    .map((r) => r.p);
}

export function getProcess(db: Db, id: number): ProcessRow | undefined {
  return db.orm.select().from(runtimeProcess).where(eq(runtimeProcess.id, id)).get();
}

/** Note a signal sent to a still-running process (so the next pass escalates instead of repeating). */
export function markSignalled(db: Db, id: number, signal: string): void {
  db.orm
    .update(runtimeProcess)
    .set({ signal })
    .where(and(eq(runtimeProcess.id, id), isNull(runtimeProcess.exitedAt)))
    .run();
}

/** Open rows of the given kinds across every project of this home (whether they still run is the caller's to judge). */
export function openProcessesOfKinds(db: Db, kinds: readonly ProcessKind[]): ProcessRow[] {
  return db.orm
    .select()
    .from(runtimeProcess)
    .where(and(isNull(runtimeProcess.exitedAt), inArray(runtimeProcess.kind, [...kinds])))
    .all();
}

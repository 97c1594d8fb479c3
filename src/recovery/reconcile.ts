/**
 * Rows left behind by a supervisor or runtime that died without cleaning up (SIGKILL,
 * power loss). Any command that lists or changes state calls `reconcile` first: a row
 * whose pid is gone is marked (instances stale, processes LOST, their sessions ended), so
 * nothing waits on a process that no longer exists.
 */
import type { Db } from '../db/client.js';
import { markDeadRows, type ReconcileResult } from '../db/repos/reconcile.js';
import { isAlive } from '../lib/process.js';

export type { ReconcileResult };

export function reconcile(db: Db, opts: { projectId?: string } = {}): ReconcileResult {
  return markDeadRows(db, isAlive, opts);
}

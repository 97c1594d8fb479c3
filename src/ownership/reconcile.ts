/**
 * Rows left behind by a supervisor or runtime that died without cleaning up (SIGKILL,
 * power loss). Any command that lists or changes state calls `reconcile` first: a row
 * whose process is gone — by pid *and* start time, so a reused pid is not taken for it — is
 * marked (instances stale, processes LOST, their sessions ended), so nothing waits on a
 * process that no longer exists.
 *
 * It also backs up the owner-death watchdog (ownership/watchdog.ts): a recorded process that must not
 * outlive its owner (a foreground claude of a dead supervisor, a `claude -p` of a dead runtime)
 * and still runs is signalled: SIGTERM + SIGCONT the first time, SIGKILL on a later pass (only when
 * its start time says it is still that process: never on the pid alone). PTY
 * hosts and runtimes are detached by design and are adopted (left alone).
 */
import type { Db } from '../db/client.js';
import { markSignalled } from '../db/repos/processes.js';
import { markDeadRows, ownerlessRows, type ReconcileResult } from '../db/repos/reconcile.js';
import { countsAsAlive, identities, signalProcess } from '../lib/process.js';

export type { ReconcileResult };

export function reconcile(db: Db, opts: { projectId?: string } = {}): ReconcileResult {
  const r = markDeadRows(db, (rows) => identities(rows).map(countsAsAlive), opts);
  r.orphansSignalled = endOrphans(db);
  // An orphan that has now ended is marked on the next pass, like any dead row.
  return r;
}

function endOrphans(db: Db): number {
  let n = 0;
  const rows = ownerlessRows(db);
  const ids = identities(rows);
  rows.forEach((p, i) => {
    if (ids[i] === 'gone' || ids[i] === 'other') return;
    // SIGKILL only to a process known by its start time; one known by its pid alone keeps its SIGTERM.
    const again = p.signal === 'SIGTERM';
    if (again && ids[i] === 'unknown') return;
    signalProcess(p, again ? 'SIGKILL' : 'SIGTERM');
    signalProcess(p, 'SIGCONT');
    if (!again) markSignalled(db, p.id, 'SIGTERM');
    n++;
  });
  return n;
}

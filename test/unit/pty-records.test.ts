// The PTY server's raw-SQL records (db/repos/pty-records.ts, session-records.ts) agree with their
// drizzle twins: a new current 'pty' row retires the previous one, ending it is final, the
// session's run state, and who else drives the session (claude, runtime, another PTY server, a claim).
import { spawnSync } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemoryDb, type Db } from '../../src/db/client.js';
import { getClaim, takeClaim } from '../../src/db/repos/claims.js';
import { currentProcesses, getProcess, recordProcess } from '../../src/db/repos/processes.js';
import { claimOf, currentRows, endRow, recordCurrentRow, setRunState } from '../../src/db/repos/pty-records.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, getSession } from '../../src/db/repos/sessions.js';
import { processStartTime } from '../../src/lib/process.js';
import { holderAlive } from '../../src/ownership/conversation-claim.js';
import { busyReason, claimedByOther } from '../../src/ptyd/session-records.js';

let db: Db;
let sid: string;
beforeEach(() => {
  db = openMemoryDb();
  ensureProject(db, { hash: 'p'.repeat(24), rootPath: '/p' });
  sid = createSession(db, { projectId: 'p'.repeat(24), type: 'general', status: 'done' }).id;
});
afterEach(() => db.close());

const deadPid = (): number => spawnSync('true').pid!;

describe('the PTY server’s records', () => {
  it('a new current row retires the previous one of its kind; ending one is final', () => {
    const other = recordProcess(db, { klaudeSessionId: sid, pid: process.pid, kind: 'runtime' });
    const first = recordCurrentRow(db, { sessionId: sid, kind: 'pty', pid: process.pid, pidStart: 7 });
    const second = recordCurrentRow(db, { sessionId: sid, kind: 'pty', pid: process.pid, pidStart: 7 });
    expect(currentProcesses(db, sid, 'pty').map((p) => p.id)).toEqual([second]);
    expect(currentRows(db, sid).map((p) => p.id)).toEqual([second, other.id]);
    expect(getProcess(db, first)).toMatchObject({ isCurrent: 0, exitedAt: null, pidStart: 7, kind: 'pty' });
    expect(getProcess(db, second)!.startedAt).toBeGreaterThan(0);
    endRow(db, second, { exitCode: null, signal: 'SIGTERM' });
    const ended = getProcess(db, second)!;
    expect(ended).toMatchObject({ isCurrent: 0, exitCode: null, signal: 'SIGTERM' });
    endRow(db, second, { exitCode: 3 });
    expect(getProcess(db, second)).toEqual(ended);
    expect(currentProcesses(db, sid, 'pty')).toEqual([]);
  });

  it('sets the session idle (not ended) and done (ended), bumping updated_at', () => {
    const before = getSession(db, sid)!.updatedAt;
    setRunState(db, sid, 'idle', null);
    expect(getSession(db, sid)).toMatchObject({ status: 'idle', endedAt: null });
    setRunState(db, sid, 'done', 1234);
    expect(getSession(db, sid)).toMatchObject({ status: 'done', endedAt: 1234 });
    expect(getSession(db, sid)!.updatedAt).toBeGreaterThanOrEqual(before);
  });

  it('names who else drives the session: a foreground claude, a runtime, another PTY server; its own rows are not in the way', () => {
    const server = process.pid;
    recordCurrentRow(db, { sessionId: sid, kind: 'pty', pid: server, pidStart: null });
    expect(busyReason(db, sid, server)).toBeNull();
    expect(busyReason(db, sid, server + 1)).toMatch(/already runs in a PTY session \(PTY server pid \d+\)/);
    recordProcess(db, { klaudeSessionId: sid, pid: deadPid(), kind: 'claude' });
    expect(busyReason(db, sid, server)).toBeNull(); // a dead foreground is no one
    recordProcess(db, { klaudeSessionId: sid, pid: process.ppid, kind: 'runtime' });
    expect(busyReason(db, sid, server)).toMatch(/is running headless \(runtime pid \d+\)/);
    recordProcess(db, { klaudeSessionId: sid, pid: process.ppid, kind: 'claude' });
    expect(busyReason(db, sid, server)).toMatch(/is open in a klaude foreground \(claude pid \d+\)/);
  });

  it('a live claim of someone other than the starter refuses; the starter’s, or a dead holder’s, does not', () => {
    const parent = {
      holder: 'a checkout in klaude X (pid p)',
      pid: process.ppid,
      start: processStartTime(process.ppid),
    };
    expect(takeClaim(db, sid, parent, holderAlive)).toBeNull();
    expect(claimOf(db, sid)).toEqual({ holder: parent.holder, holderPid: parent.pid, holderStart: parent.start });
    expect(claimOf(db, sid)!.holder).toBe(getClaim(db, sid)!.holder);
    expect(claimedByOther(db, sid, 1)).toBe(parent.holder);
    expect(claimedByOther(db, sid, process.ppid)).toBeNull();
    db.sqlite.prepare('UPDATE session_claims SET holder_pid = ?').run(deadPid());
    expect(claimedByOther(db, sid, 1)).toBeNull();
  });
});

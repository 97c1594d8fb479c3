// reconcile(): rows left by supervisors and runtimes that died without cleaning up.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { isAlive, processStartTime } from '../../src/lib/process.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemoryDb, type Db } from '../../src/db/client.js';
import { createInstance, getInstance } from '../../src/db/repos/instances.js';
import { currentProcesses, endProcess, recordProcess } from '../../src/db/repos/processes.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, getSession } from '../../src/db/repos/sessions.js';
import type { SessionStatus } from '../../src/core/status.js';
import { reconcile } from '../../src/ownership/reconcile.js';

const P1 = '1'.repeat(24);
const P2 = '2'.repeat(24);
/** A pid that existed and is gone. */
const deadPid = (): number => spawnSync('true').pid!;
const livePid = process.pid;

let db: Db;
beforeEach(() => {
  db = openMemoryDb();
  ensureProject(db, { hash: P1, rootPath: '/p1' });
  ensureProject(db, { hash: P2, rootPath: '/p2' });
});
afterEach(() => db.close());

const instance = (projectId: string, pid: number) =>
  createInstance(db, { projectId, pid, socketPath: `/run/${pid}.sock`, cwd: '/p', mode: 'cli' }).id;
const session = (type: string, status: SessionStatus, projectId = P1) =>
  createSession(db, { projectId, type, status }).id;
const proc = (sessionId: string, pid: number, kind: 'claude' | 'runtime' = 'claude') =>
  recordProcess(db, { klaudeSessionId: sessionId, pid, kind, isCurrent: true }).id;
const row = (id: number) =>
  db.sqlite.prepare('SELECT * FROM runtime_process WHERE id = ?').get(id) as Record<string, unknown>;

describe('reconcile', () => {
  it('does nothing when every recorded process is alive', () => {
    instance(P1, livePid);
    const s = session('tui', 'idle');
    proc(s, livePid);
    expect(reconcile(db)).toEqual({ staleInstances: [], lostProcesses: 0, sessionsEnded: [], orphansSignalled: 0 });
    expect(getSession(db, s)!.status).toBe('idle');
  });

  it('marks running instances with a dead pid stale, in the given project only', () => {
    const dead1 = instance(P1, deadPid());
    const alive = instance(P1, livePid);
    const dead2 = instance(P2, deadPid());
    const r = reconcile(db, { projectId: P1 });
    expect(r.staleInstances).toEqual([dead1]);
    expect(getInstance(db, dead1)).toMatchObject({ status: 'stale' });
    expect(getInstance(db, dead1)!.endedAt).toBeGreaterThan(0);
    expect(getInstance(db, alive)!.status).toBe('running');
    expect(getInstance(db, dead2)!.status).toBe('running');
    expect(reconcile(db).staleInstances).toEqual([dead2]);
  });

  it('marks lost processes and ends their sessions: a TUI is done, a working agent interrupted, an idle one done', () => {
    const tui = session('tui', 'running');
    const working = session('general', 'running');
    const waiting = session('general', 'waiting');
    const idle = session('general', 'idle');
    const rows = [
      proc(tui, deadPid()),
      proc(working, deadPid(), 'runtime'),
      proc(waiting, deadPid(), 'runtime'),
      proc(idle, deadPid(), 'runtime'),
    ];
    const r = reconcile(db);
    expect(r.lostProcesses).toBe(4);
    expect(new Set(r.sessionsEnded)).toEqual(new Set([tui, working, waiting, idle]));
    for (const id of rows) expect(row(id)).toMatchObject({ signal: 'LOST', is_current: 0, exit_code: null });
    expect(getSession(db, tui)!.status).toBe('done');
    expect(getSession(db, working)!.status).toBe('interrupted');
    expect(getSession(db, waiting)!.status).toBe('interrupted');
    expect(getSession(db, idle)!.status).toBe('done');
    expect(getSession(db, working)!.endedAt).toBeGreaterThan(0);
    expect(reconcile(db)).toEqual({ staleInstances: [], lostProcesses: 0, sessionsEnded: [], orphansSignalled: 0 }); // idempotent
  });

  it('leaves a session alone while another of its processes lives, and never rewrites a final status', () => {
    const both = session('general', 'running');
    proc(both, deadPid(), 'runtime');
    proc(both, livePid, 'claude');
    const failed = session('general', 'failed');
    proc(failed, deadPid(), 'runtime');
    const r = reconcile(db);
    expect(r.lostProcesses).toBe(2);
    expect(r.sessionsEnded).toEqual([]);
    expect(getSession(db, both)!.status).toBe('running');
    expect(currentProcesses(db, both).map((p) => p.pid)).toEqual([livePid]);
    expect(getSession(db, failed)!.status).toBe('failed');
  });

  it('ignores processes that already exited', () => {
    const s = session('tui', 'done');
    const id = proc(s, deadPid());
    endProcess(db, id, { exitCode: 0 });
    expect(reconcile(db).lostProcesses).toBe(0);
    expect(row(id)).toMatchObject({ exit_code: 0, signal: null });
  });
});

describe('reconcile: processes are pid + start time; ownerless ones are ended', () => {
  const children: ReturnType<typeof spawn>[] = [];
  afterEach(() => {
    for (const c of children.splice(0)) c.kill('SIGKILL');
  });
  const sleeper = async (): Promise<number> => {
    const c = spawn('sleep', ['300'], { stdio: 'ignore' });
    children.push(c);
    await once(c, 'spawn');
    return c.pid!;
  };
  const exited = (pid: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const c = children.find((x) => x.pid === pid)!;
      if (c.exitCode !== null || c.signalCode !== null) return resolve();
      const t = setTimeout(() => reject(new Error(`pid ${pid} still running`)), 5000);
      c.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
    });

  it('a live pid whose start time differs from the recorded one is a reused pid: LOST, never signalled', async () => {
    if (process.platform !== 'linux') return; // start times come from /proc
    const pid = await sleeper();
    const inst = instance(P1, deadPid());
    const s = session('tui', 'idle');
    const id = recordProcess(db, {
      klaudeSessionId: s,
      instanceId: inst,
      pid,
      kind: 'claude',
      pidStart: processStartTime(pid)! + 1,
    }).id;
    const r = reconcile(db);
    expect(r).toMatchObject({ lostProcesses: 1, orphansSignalled: 0 });
    expect(row(id)).toMatchObject({ signal: 'LOST', is_current: 0 });
    expect(isAlive(pid)).toBe(true); // the stranger with our old pid is untouched
  });

  it("a foreground claude of a dead supervisor and a runtime's CLI of a dead runtime are ended", async () => {
    const fg = await sleeper();
    const cli = await sleeper();
    const inst = instance(P1, deadPid());
    const tui = session('tui', 'idle');
    recordProcess(db, { klaudeSessionId: tui, instanceId: inst, pid: fg, kind: 'claude' });
    const agent = session('general', 'running');
    const rt = recordProcess(db, { klaudeSessionId: agent, pid: deadPid(), kind: 'runtime' }).id;
    recordProcess(db, { klaudeSessionId: agent, pid: cli, kind: 'cli', parentProcessId: rt });
    // A CLI whose runtime lives is left alone.
    const ownedCli = await sleeper();
    const agent2 = session('general', 'running');
    const rt2 = recordProcess(db, { klaudeSessionId: agent2, pid: livePid, kind: 'runtime' }).id;
    recordProcess(db, { klaudeSessionId: agent2, pid: ownedCli, kind: 'cli', parentProcessId: rt2 });

    const r = reconcile(db);
    expect(r.staleInstances).toEqual([inst]);
    expect(r.orphansSignalled).toBe(2);
    await exited(fg);
    await exited(cli);
    expect(isAlive(ownedCli)).toBe(true);
    const again = reconcile(db); // now gone: marked like any dead row
    expect(again.lostProcesses).toBe(2);
    expect(getSession(db, tui)!.status).toBe('done');
  });
});

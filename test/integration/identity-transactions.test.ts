// Decisions about recorded processes are made inside the transaction that writes them: reconcile
// never re-marks a row its owner just ended, archive/delete judge "busy" where nobody can start the
// session meanwhile. And reconcile judges by pid + start time from either source: a reused pid is
// never signalled, a process known by its pid alone never gets SIGKILL.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { archiveSessions, deleteSessions } from '../../src/agent-ops/archive.js';
import { openAgentServices, type AgentServices } from '../../src/agent-ops/context.js';
import { openDb, type Db } from '../../src/db/client.js';
import { takeClaim } from '../../src/db/repos/claims.js';
import { createInstance } from '../../src/db/repos/instances.js';
import { endProcess, getProcess, recordProcess } from '../../src/db/repos/processes.js';
import { markDeadRows } from '../../src/db/repos/reconcile.js';
import { createSession, getSession, updateSession } from '../../src/db/repos/sessions.js';
import { processStartTime, type StartSource } from '../../src/lib/process.js';
import { reconcile } from '../../src/ownership/reconcile.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';

// The seam: something to run at the moment archive/delete probe their sessions' processes.
const seam = vi.hoisted(() => ({ onProbe: null as null | (() => void) }));
vi.mock('../../src/lib/process.js', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../src/lib/process.js')>();
  return {
    ...m,
    liveRows: ((rows, src) => {
      seam.onProbe?.();
      return m.liveRows(rows, src);
    }) as typeof m.liveRows,
  };
});

let h: TempHome | undefined;
const open: { close(): void }[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  seam.onProbe = null;
  for (const c of children.splice(0)) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of open.splice(0)) d.close();
  h?.cleanup();
  h = undefined;
});

function setup(): { svc: AgentServices; other: Db } {
  h = makeTempHome({ prefix: 'klaude-idtx-' });
  const svc = openAgentServices({ env: h.env, cwd: h.projectDir });
  // A second connection: another klaude process (an agent's runtime, a `klaude message`).
  const other = openDb(h.klaudeHome);
  other.sqlite.pragma('busy_timeout = 0');
  open.push(svc.db, other);
  return { svc, other };
}

/** What another process's write gets at this moment: 'ok', or 'busy' while we hold the write lock. */
function tryWrite(fn: () => void): 'ok' | 'busy' {
  try {
    fn();
    return 'ok';
  } catch (e) {
    if ((e as { code?: string }).code === 'SQLITE_BUSY') return 'busy';
    throw e;
  }
}

const deadPid = (): number => spawnSync('true').pid!;

describe('markDeadRows', () => {
  it('does not re-mark a row its owner ended (with a real exit code) after the first look', () => {
    const { svc, other } = setup();
    const s = createSession(svc.db, { projectId: svc.projectHash, type: 'general', status: 'running' });
    const row = recordProcess(svc.db, { klaudeSessionId: s.id, pid: deadPid(), kind: 'runtime', pidStart: 1 });
    let looks = 0;
    let lookedAgain = false;
    const r = markDeadRows(svc.db, (rows) => {
      lookedAgain ||= svc.db.sqlite.inTransaction;
      if (!rows.some((p) => p.pid === row.pid)) return rows.map(() => true);
      // The first look (no lock) finds the row dead; right then its owner records how it ended.
      if (looks++ === 0) {
        endProcess(other, row.id, { exitCode: 0 });
        updateSession(other, s.id, { status: 'done', endedAt: Date.now() });
      }
      return rows.map(() => false);
    });
    expect(looks).toBe(1);
    expect(lookedAgain).toBe(true); // and, under the write lock, found it ended
    expect(r).toMatchObject({ lostProcesses: 0, sessionsEnded: [] });
    expect(getProcess(svc.db, row.id)).toMatchObject({ exitCode: 0, signal: null });
    expect(getSession(svc.db, s.id)!.status).toBe('done');
  });

  it('decides and marks inside one write transaction: no owner can write in between', () => {
    const { svc, other } = setup();
    const s = createSession(svc.db, { projectId: svc.projectHash, type: 'general', status: 'running' });
    const row = recordProcess(svc.db, { klaudeSessionId: s.id, pid: deadPid(), kind: 'runtime', pidStart: 1 });
    const owner: string[] = [];
    const r = markDeadRows(svc.db, (rows) => {
      if (svc.db.sqlite.inTransaction && rows.some((p) => p.pid === row.pid))
        owner.push(tryWrite(() => endProcess(other, row.id, { exitCode: 0 })));
      return rows.map(() => false);
    });
    expect(owner).toEqual(['busy']);
    expect(r).toMatchObject({ lostProcesses: 1, sessionsEnded: [s.id] });
    expect(getProcess(svc.db, row.id)).toMatchObject({ signal: 'LOST', exitCode: null });
    expect(getSession(svc.db, s.id)!.status).toBe('interrupted');
  });
});

describe('reconcile: identity from either source', () => {
  const noProc = mkdtempSync(path.join(tmpdir(), 'klaude-noproc-'));
  const PS_ONLY: StartSource = { procRoot: noProc, ps: 'ps' };
  afterAll(() => rmSync(noProc, { recursive: true, force: true }));

  async function stubborn(): Promise<{ child: ChildProcess; out: () => string }> {
    const child = spawn(
      process.execPath,
      [
        '-e',
        `process.on('SIGTERM', () => console.log('term')); process.stdin.on('data', () => console.log('pong')); console.log('ready');`,
      ],
      { stdio: ['pipe', 'pipe', 'ignore'] },
    );
    children.push(child);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    await until('the child to be ready', () => out.includes('ready'), 10_000);
    return { child, out: () => out };
  }

  /** A foreground claude row of a supervisor that died: an orphan reconcile ends. */
  function orphan(svc: AgentServices, pid: number, pidStart: number | null): number {
    const inst = createInstance(svc.db, {
      projectId: svc.projectHash,
      pid: deadPid(),
      socketPath: '/x.sock',
      cwd: '/',
      mode: 'cli',
    });
    const s = createSession(svc.db, { projectId: svc.projectHash, type: 'tui', status: 'idle' });
    return recordProcess(svc.db, { klaudeSessionId: s.id, instanceId: inst.id, pid, kind: 'claude', pidStart }).id;
  }

  it('a row recorded by ps (no /proc) with a start that differs is a reused pid: LOST, never signalled', async () => {
    const { svc } = setup();
    const c = await stubborn();
    const id = orphan(svc, c.child.pid!, processStartTime(c.child.pid!, PS_ONLY)! - 1);
    expect(reconcile(svc.db)).toMatchObject({ lostProcesses: 1, orphansSignalled: 0 });
    expect(getProcess(svc.db, id)).toMatchObject({ signal: 'LOST' });
    c.child.stdin!.write('ping\n');
    await until('its answer', () => c.out().includes('pong'), 10_000);
    expect(c.out()).not.toContain('term');
  });

  it('a row recorded by ps with its own start is ended: SIGTERM, then SIGKILL on a later pass', async () => {
    const { svc } = setup();
    const c = await stubborn();
    const id = orphan(svc, c.child.pid!, processStartTime(c.child.pid!, PS_ONLY)!);
    expect(reconcile(svc.db).orphansSignalled).toBe(1);
    await until('the SIGTERM', () => c.out().includes('term'), 10_000);
    expect(getProcess(svc.db, id)!.signal).toBe('SIGTERM');
    reconcile(svc.db);
    await until('its end', () => c.child.signalCode !== null, 10_000);
    expect(c.child.signalCode).toBe('SIGKILL');
  });

  it('a row with no start time gets SIGTERM only, never SIGKILL', async () => {
    const { svc } = setup();
    const c = await stubborn();
    orphan(svc, c.child.pid!, null);
    expect(reconcile(svc.db).orphansSignalled).toBe(1);
    await until('the SIGTERM', () => c.out().includes('term'), 10_000);
    expect(reconcile(svc.db).orphansSignalled).toBe(0);
    c.child.stdin!.write('ping\n');
    await until('its answer or its end', () => c.out().includes('pong') || c.child.signalCode !== null, 10_000);
    expect(c.out()).toContain('pong');
  });
});

describe('archive / delete of a session that becomes busy', () => {
  for (const verb of ['archive', 'delete'] as const) {
    const run = (svc: AgentServices, id: string) =>
      verb === 'archive' ? archiveSessions(svc, [id]) : deleteSessions(svc, [id]);

    it(`${verb}: the busy check and the write are one transaction (a resume can't start in between)`, () => {
      const { svc, other } = setup();
      const s = createSession(svc.db, { projectId: svc.projectHash, type: 'general', status: 'done' });
      const resume: string[] = [];
      seam.onProbe = () => {
        if (resume.length === 0) resume.push(tryWrite(() => updateSession(other, s.id, { status: 'running' })));
      };
      expect(run(svc, s.id).map((r) => r.id)).toEqual([s.id]);
      expect(resume).toEqual(['busy']);
      expect(svc.db.sqlite.inTransaction).toBe(false);
      // Now the resume's write goes through, and finds the session retired.
      if (verb === 'archive') expect(getSession(svc.db, s.id)!.archivedAt).toBeGreaterThan(0);
      else expect(getSession(svc.db, s.id)).toBeUndefined();
    });

    it(`${verb}: refuses a finished session another live process is taking over (its conversation claim)`, () => {
      const { svc, other } = setup();
      const s = createSession(svc.db, { projectId: svc.projectHash, type: 'general', status: 'done' });
      // A `klaude message` resume (this test's parent process stands in for it) holds the claim.
      const ppid = process.ppid;
      const taker = { holder: 'a resume by klaude message (pid x)', pid: ppid, start: processStartTime(ppid) };
      expect(takeClaim(other, s.id, taker, () => true)).toBeNull();
      expect(() => run(svc, s.id)).toThrow(/is being taken by a resume by klaude message/);
      expect(getSession(svc.db, s.id)).toMatchObject({ archivedAt: null });
    });
  }
});

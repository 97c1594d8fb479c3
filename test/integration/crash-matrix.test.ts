// The crash × command matrix, deterministic (seeded states, no model): each command against an
// agent whose runtime is dead (unnoticed, agents.recover: off), one being recovered (the
// conversation claim held by a live recovery, no runtime yet), and one queued. Nothing is lost,
// nothing is falsely ended, and each command says what it did or why not. (Dead + recover: auto,
// where a message joins the resume prompt, runs the real claude in run-recovery.test.ts.)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { beginTurn, claimRecovery } from '../../src/db/repos/checkpoints.js';
import { takeClaim } from '../../src/db/repos/claims.js';
import { recordProcess } from '../../src/db/repos/processes.js';
import { createSession, getSession, updateSession } from '../../src/db/repos/sessions.js';
import { isSameProcess, processStartTime } from '../../src/lib/process.js';
import type { Db } from '../../src/db/client.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';

type State = 'dead' | 'recovering' | 'queued';

let home: TempHome | undefined;
let db: Db | undefined;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  db?.close();
  db = undefined;
  home?.cleanup();
  home = undefined;
});

async function sleeper(): Promise<ChildProcess> {
  const c = spawn('sleep', ['300'], { stdio: 'ignore' });
  children.push(c);
  await until('sleeper started', () => c.pid !== undefined && processStartTime(c.pid) !== null);
  return c;
}

/** A temp home, recover off, and one agent in `state`; returns its id and log path. */
async function seed(state: State): Promise<{ id: string; log: string }> {
  home = makeTempHome({ prefix: 'klaude-matrix-' });
  writeFileSync(path.join(home.klaudeHome, 'config.yaml'), 'agents:\n  recover: off\n');
  const s = seedProject(home);
  db = s.db;
  const logDir = path.join(home.root, 'logs');
  mkdirSync(logDir, { recursive: true });
  const status = state === 'queued' ? 'queued' : 'running';
  const row = createSession(db, { projectId: s.hash, type: 'general', status, prompt: 'the job' });
  const log = path.join(logDir, `${row.id}.ndjson`);
  writeFileSync(log, `${JSON.stringify({ ts: Date.now(), type: 'user', text: 'the job', source: 'start' })}\n`);
  updateSession(db, row.id, {
    logPath: log,
    nativeSessionId: '4a234254-cccc-4000-8000-000000000003',
    metadata:
      state === 'queued'
        ? { cwd: home.projectDir, queuedRequest: { prompt: 'the job', share: null } }
        : { cwd: home.projectDir },
  });
  if (state === 'queued') {
    db.sqlite.prepare('UPDATE sessions SET queued_at = ? WHERE id = ?').run(Date.now(), row.id);
    return { id: row.id, log };
  }
  beginTurn(db, row.id, 'the job');
  // Its runtime: recorded while alive (pid + start time), then killed.
  const rt = await sleeper();
  recordProcess(db, { klaudeSessionId: row.id, pid: rt.pid!, kind: 'runtime' });
  rt.kill('SIGKILL');
  await until(
    'the runtime dead',
    () => (!isSameProcess(rt.pid!, processStartTime(rt.pid!) ?? -1) && rt.exitCode !== null) || rt.signalCode !== null,
  );
  if (state === 'recovering') {
    // A recovery elsewhere has claimed the turn and holds the conversation; its runtime is not up yet.
    const holder = await sleeper();
    claimRecovery(db, row.id);
    takeClaim(
      db,
      row.id,
      { holder: `crash recovery (pid ${holder.pid})`, pid: holder.pid!, start: processStartTime(holder.pid!) },
      () => true,
    );
  }
  return { id: row.id, log };
}

const klaude = (args: string[]) => runKlaude(args, { env: home!.env, cwd: home!.projectDir, timeoutMs: 60_000 });
const status = (id: string) => getSession(db!, id)!.status;
const logText = (log: string) => readFileSync(log, 'utf8');

describe('runtime dead (unnoticed, recover off)', () => {
  it('message resumes the stopped run with the message, after recording why the run ended', async () => {
    const { id, log } = await seed('dead');
    const r = await klaude(['message', id.slice(-8), 'are you there?', '--json']);
    // No runtime can resume a made-up conversation here: the point is the message was taken, not lost.
    expect(r.stderr).not.toContain('E_SESSION_BUSY');
    expect(JSON.parse(r.stdout)).toMatchObject({ delivered: 'resumed' });
    expect(logText(log)).not.toContain('recovery could not start');
  });

  it('wait reaps it and says why; interrupt says it is not running; approve finds nothing pending', async () => {
    const { id } = await seed('dead');
    const w = await klaude(['wait', id.slice(-8), '--timeout', '30']);
    expect(w.code).toBe(1);
    expect(status(id)).toMatch(/failed|interrupted/);
    const i = await klaude(['interrupt', id.slice(-8)]);
    expect(i.code).toBe(1);
    expect(i.stderr).toContain('E_AGENT_NOT_RUNNING');
    const a = await klaude(['approve', id.slice(-8)]);
    expect(a.code).toBe(1);
    expect(a.stderr).toContain('E_NO_PENDING_APPROVAL');
  });

  it('archive and delete go through: nothing runs it any more', async () => {
    const { id } = await seed('dead');
    expect((await klaude(['archive', id.slice(-8)])).code).toBe(0);
    expect(getSession(db!, id)!.archivedAt).not.toBeNull();
    const d = await klaude(['delete', id.slice(-8)]);
    expect(d.code, d.stderr).toBe(0);
    expect(getSession(db!, id)).toBeUndefined();
  });
});

describe('being recovered (the claim held by a live recovery)', () => {
  it('wait keeps waiting (the run is not reaped); approve finds nothing pending', async () => {
    const { id, log } = await seed('recovering');
    const w = await klaude(['wait', id.slice(-8), '--timeout', '2']);
    expect(w.code).not.toBe(0);
    expect(w.stderr + w.stdout).toMatch(/still (running|working)|timed out|E_TIMEOUT/i);
    expect(status(id)).toBe('running');
    expect(logText(log)).not.toContain('"type":"done"');
    const a = await klaude(['approve', id.slice(-8)]);
    expect(a.stderr).toContain('E_NO_PENDING_APPROVAL');
  });

  it('interrupt, archive and delete are refused with the recovery named; nothing changes', async () => {
    const { id, log } = await seed('recovering');
    const i = await klaude(['interrupt', id.slice(-8)]);
    expect(i.code).toBe(1);
    expect(i.stderr).toContain('crash recovery');
    for (const cmd of [
      ['archive', id.slice(-8)],
      ['delete', id.slice(-8)],
    ]) {
      const r = await klaude(cmd);
      expect(r.code, cmd[0]).not.toBe(0);
      expect(r.stderr, cmd[0]).toContain('crash recovery');
    }
    expect(status(id)).toBe('running');
    expect(getSession(db!, id)!.archivedAt).toBeNull();
    expect(logText(log)).not.toContain('"type":"done"');
  });

  it('message waits for the recovered run and, when none comes, says so without losing state', async () => {
    const { id, log } = await seed('recovering');
    const r = await klaude(['message', id.slice(-8), 'also do this']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('E_SESSION_BUSY');
    expect(r.stderr).not.toContain(`pid ${process.pid}`);
    expect(status(id)).toBe('running');
    expect(logText(log)).not.toContain('"type":"done"');
  }, 60_000);
});

describe('queued', () => {
  it('message joins its first prompt; wait waits; approve finds nothing pending', async () => {
    const { id } = await seed('queued');
    const m = await klaude(['message', id.slice(-8), 'and this too', '--json']);
    expect(JSON.parse(m.stdout)).toMatchObject({ delivered: 'queued' });
    const req = (getSession(db!, id)!.metadata as { queuedRequest: { prompt: string } }).queuedRequest;
    expect(req.prompt).toBe('the job\n\nand this too');
    const w = await klaude(['wait', id.slice(-8), '--timeout', '2']);
    expect(w.code).not.toBe(0);
    expect(status(id)).toBe('queued');
    expect((await klaude(['approve', id.slice(-8)])).stderr).toContain('E_NO_PENDING_APPROVAL');
  });

  it('interrupt cancels it; archive and delete go through', async () => {
    const { id, log } = await seed('queued');
    expect((await klaude(['interrupt', id.slice(-8)])).code).toBe(0);
    expect(status(id)).toBe('cancelled');
    expect(logText(log)).toContain('interrupted while queued');
    expect((await klaude(['archive', id.slice(-8)])).code).toBe(0);
    expect((await klaude(['delete', id.slice(-8)])).code).toBe(0);
  });
});

// `klaude sessions` on a seeded DB, through the built CLI.
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { recordProcess } from '../../src/db/repos/processes.js';
import { createSession, getSession, updateSession } from '../../src/db/repos/sessions.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

const DAY = 24 * 3600 * 1000;

/** A project with: root TUI → coder (running, live pid) → reviewer (done); an old root; an archived one; another project's session. */
function seed(o: { activity?: string } = {}) {
  const h = (home = makeTempHome());
  const { db, hash } = seedProject(h);
  const now = Date.now();
  const root = createSession(db, {
    projectId: hash,
    type: 'tui',
    status: 'idle',
    prompt: 'fix the flaky test\nin src/db',
    nativeSessionId: '4a234254-aaaa-4000-8000-000000000001',
  });
  updateSession(db, root.id, { lastText: 'Done: the test now waits for the event.' });
  db.sqlite.prepare('UPDATE sessions SET created_at = ? WHERE id = ?').run(now - 3 * 3600_000, root.id);
  const coder = createSession(db, {
    projectId: hash,
    parentId: root.id,
    type: 'coder',
    status: 'running',
    prompt: 'rewrite the wait helper',
    model: 'sonnet',
    nativeSessionId: '4a234254-bbbb-4000-8000-000000000002',
    logPath: '/tmp/logs/coder.ndjson',
  });
  updateSession(db, coder.id, { costUsd: 0.0421, ...(o.activity ? { activity: o.activity } : {}) });
  recordProcess(db, { klaudeSessionId: coder.id, pid: process.pid, kind: 'runtime' });
  const reviewer = createSession(db, {
    projectId: hash,
    parentId: coder.id,
    type: 'reviewer',
    status: 'done',
    prompt: 'review it',
  });
  updateSession(db, reviewer.id, { lastText: 'LGTM', endedAt: now });
  const old = createSession(db, { projectId: hash, type: 'tui', status: 'done', prompt: 'an old session' });
  updateSession(db, old.id, { endedAt: now - 10 * DAY, updatedAt: now - 10 * DAY });
  const archived = createSession(db, { projectId: hash, type: 'tui', status: 'idle', prompt: 'archived one' });
  updateSession(db, archived.id, { archivedAt: now });
  db.close();
  return { h, hash, root, coder, reviewer, old, archived };
}

describe('klaude sessions', () => {
  it('prints the tree with status, type, short id, runtime, age and first → last message', async () => {
    const s = seed();
    // Wide enough for whole rows (in a pipe the listing fits COLUMNS, else 100 columns).
    const r = await runKlaude(['sessions'], { env: { ...s.h.env, COLUMNS: '400' }, cwd: s.h.projectDir });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+TYPE\s+RUNTIME\s+AGE\s+ACTIVITY\s+TITLE → LAST MESSAGE$/);
    expect(lines[1]).toMatch(
      new RegExp(
        `^${shortId(s.root.id)}\\s+idle\\s+claude\\s+claude\\s+3h\\s+fix the flaky test in src/db → Done: the test now waits for the event\\.$`,
      ),
    );
    expect(lines[2]).toMatch(
      new RegExp(
        `^└─ ${shortId(s.coder.id)}\\s+running\\s+coder\\s+claude\\s+\\d+s\\s+\\d+s working\\s+rewrite the wait helper$`,
      ),
    );
    expect(lines[3]).toMatch(
      new RegExp(`^   └─ ${shortId(s.reviewer.id)}\\s+done\\s+reviewer\\s+claude\\s+\\d+s\\s+review it → LGTM$`),
    );
    expect(lines[4]).toBe('1 session ended over 7 days ago hidden (--all shows them)');
    expect(lines).toHaveLength(5);
    expect(r.stdout).not.toContain(shortId(s.archived.id));
    expect(r.stdout).not.toContain('\x1b[');
  });

  it('--all includes archived sessions and ones that ended long ago', async () => {
    const s = seed();
    const r = await runKlaude(['sessions', '--all'], { env: s.h.env, cwd: s.h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(shortId(s.old.id));
    expect(r.stdout).toContain(shortId(s.archived.id));
    expect(r.stdout).not.toContain('hidden');
  });

  it('at 80 columns a long activity is cut so the title still shows', async () => {
    const s = seed({ activity: `Bash: ${'while [ ! -f gate/go ]; do sleep 0.1; done; '.repeat(3)}` });
    const r = await runKlaude(['sessions'], { env: { ...s.h.env, COLUMNS: '80' }, cwd: s.h.projectDir });
    const row = r.stdout.split('\n').find((l) => l.includes(shortId(s.coder.id)))!;
    expect(row.length).toBeLessThanOrEqual(80);
    expect(row).toMatch(/\d+s Bash:\S*…\s+rewrite the /);
  });

  it('-v adds the Claude id, model, pid, cost and log path under each session', async () => {
    const s = seed();
    const r = await runKlaude(['sessions', '-v'], { env: { ...s.h.env, COLUMNS: '400' }, cwd: s.h.projectDir });
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    const at = lines.findIndex((l) => l.includes(shortId(s.coder.id)));
    expect(lines[at + 1]).toBe(
      `   │  claude id 4a234254-bbbb-4000-8000-000000000002  model sonnet  pid ${process.pid}  cost $0.0421  log /tmp/logs/coder.ndjson`,
    );
    expect(lines[1 + 1]).toBe('│  claude id 4a234254-aaaa-4000-8000-000000000001  pid -  cost -  log -');
  });

  it('--json emits the tree', async () => {
    const s = seed();
    const r = await runKlaude(['sessions', '--json'], { env: s.h.env, cwd: s.h.projectDir });
    expect(r.code).toBe(0);
    const roots = JSON.parse(r.stdout);
    expect(roots).toHaveLength(1);
    expect(roots[0]).toMatchObject({
      id: s.root.id,
      shortId: shortId(s.root.id),
      type: 'tui',
      status: 'idle',
      parentId: null,
    });
    const coder = roots[0].children[0];
    expect(coder).toMatchObject({
      id: s.coder.id,
      type: 'coder',
      pid: process.pid,
      costUsd: 0.0421,
      model: 'sonnet',
      logPath: '/tmp/logs/coder.ndjson',
    });
    expect(coder.children.map((c: { id: string }) => c.id)).toEqual([s.reviewer.id]);
    const all = JSON.parse(
      (await runKlaude(['sessions', '--json', '--all'], { env: s.h.env, cwd: s.h.projectDir })).stdout,
    );
    // Newest root first, as the dashboard lists them.
    expect(all.map((n: { id: string }) => n.id)).toEqual([s.archived.id, s.old.id, s.root.id]);
  });

  it('marks a session whose runtime died as interrupted before listing', async () => {
    const s = seed();
    const dead = spawnSync(process.execPath, ['-e', 'process.pid']).pid!; // exited: its pid is gone
    const { db, hash } = seedProject(s.h);
    const lost = createSession(db, { projectId: hash, type: 'explore', status: 'running', prompt: 'lost agent' });
    recordProcess(db, { klaudeSessionId: lost.id, pid: dead, kind: 'runtime' });
    db.close();
    const r = await runKlaude(['sessions'], { env: s.h.env, cwd: s.h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`${shortId(lost.id)}\\s+interrupted\\s+explore`));
    const again = seedProject(s.h);
    expect(getSession(again.db, lost.id)?.status).toBe('interrupted');
    again.db.close();
  });

  it('says so when the project has no sessions (and works before any DB exists)', async () => {
    const h = (home = makeTempHome());
    const r = await runKlaude(['sessions'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('no sessions in this project (--all includes archived ones)\n');
    expect((await runKlaude(['sessions', '--json'], { env: h.env, cwd: h.projectDir })).stdout).toBe('[]\n');
  });

  it('rejects arguments and unknown flags with one line', async () => {
    const h = (home = makeTempHome());
    const r = await runKlaude(['sessions', 'extra'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^klaude: unexpected argument 'extra' for 'sessions' \[E_USAGE\]/);
    const f = await runKlaude(['sessions', '--tree'], { env: h.env, cwd: h.projectDir });
    expect(f.code).toBe(2);
    expect(f.stderr).toContain("'--tree'");
  });
});

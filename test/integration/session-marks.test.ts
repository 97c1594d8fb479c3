// `klaude rename` and `klaude pin` through the built CLI, what `klaude sessions` makes of them, and
// `sessions --projects` / `status --projects` over two projects of one home.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { projectHash } from '../../src/config/paths.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { shortId } from '../../src/core/ids.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let home: TempHome | undefined;
afterEach(() => {
  home?.cleanup();
  home = undefined;
});

function seed() {
  const h = (home = makeTempHome());
  const { db, hash } = seedProject(h);
  const mk = (prompt: string, at: number) => {
    const s = createSession(db, { projectId: hash, type: 'general', status: 'done', prompt });
    db.sqlite.prepare('UPDATE sessions SET created_at = ? WHERE id = ?').run(at, s.id);
    return s.id;
  };
  const now = Date.now();
  const older = mk('RUN: the first job', now - 3000);
  const middle = mk('RUN: the second job', now - 2000);
  const newest = mk('RUN: the third job', now - 1000);
  db.close();
  return { h, older, middle, newest };
}

const rowsOf = (out: string): string[] => out.trimEnd().split('\n').slice(1);

describe('klaude rename / pin', () => {
  it('rename shows the title instead of the prompt; -v and --json keep the prompt; "" clears it', async () => {
    const s = seed();
    const opts = { env: s.h.env, cwd: s.h.projectDir };
    const r = await runKlaude(['rename', shortId(s.middle), 'auth\nrefactor'], opts);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${shortId(s.middle)}: "auth refactor"\n`);
    const list = await runKlaude(['sessions'], opts);
    const row = rowsOf(list.stdout).find((l) => l.startsWith(shortId(s.middle)))!;
    expect(row).toMatch(/auth refactor$/);
    expect(row).not.toContain('second job');
    const verbose = await runKlaude(['sessions', '-v'], opts);
    expect(verbose.stdout).toContain('prompt RUN: the second job');
    const json = JSON.parse((await runKlaude(['sessions', '--json'], opts)).stdout) as {
      id: string;
      name: string | null;
      prompt: string;
    }[];
    const j = json.find((x) => x.id === s.middle)!;
    expect(j).toMatchObject({ name: 'auth refactor', prompt: 'RUN: the second job' });
    const cleared = await runKlaude(['rename', shortId(s.middle), '', '--json'], opts);
    expect(JSON.parse(cleared.stdout)).toEqual({ id: s.middle, name: null });
    const again = await runKlaude(['sessions'], opts);
    expect(rowsOf(again.stdout).find((l) => l.startsWith(shortId(s.middle)))).toMatch(/RUN: the second job$/);
  });

  it('pinned rows stay on top until unpinned', async () => {
    const s = seed();
    const opts = { env: s.h.env, cwd: s.h.projectDir };
    const before = rowsOf((await runKlaude(['sessions'], opts)).stdout).map((l) => l.slice(0, 8));
    expect(before).toEqual([s.newest, s.middle, s.older].map(shortId));
    const pin = await runKlaude(['pin', shortId(s.older), '--json'], opts);
    expect(JSON.parse(pin.stdout)).toEqual({ pinned: [s.older] });
    const rows = rowsOf((await runKlaude(['sessions'], opts)).stdout);
    expect(rows.map((l) => l.slice(0, 8))).toEqual([s.older, s.newest, s.middle].map(shortId));
    expect(rows[0]).toMatch(/done · pinned/);
    await runKlaude(['pin', shortId(s.older), '--unpin'], opts);
    const after = rowsOf((await runKlaude(['sessions'], opts)).stdout).map((l) => l.slice(0, 8));
    expect(after).toEqual(before);
  });

  it('an unknown id is E_SESSION_NOT_FOUND and changes nothing', async () => {
    const s = seed();
    const r = await runKlaude(['pin', shortId(s.older), 'ZZZZZZZZ'], { env: s.h.env, cwd: s.h.projectDir });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain('no session matches');
    const rows = rowsOf((await runKlaude(['sessions'], { env: s.h.env, cwd: s.h.projectDir })).stdout);
    expect(rows.join('\n')).not.toContain('pinned');
  });

  it('--help describes rename', async () => {
    const r = await runKlaude(['rename', '--help'], {});
    expect(r.stdout).toContain('klaude rename <id> "<title>"');
  });
});

describe('klaude sessions / status --projects', () => {
  it('lists every project of the home, the waiting session first, with counts across projects', async () => {
    const h = (home = makeTempHome());
    const { db, hash } = seedProject(h);
    const rootB = join(h.root, 'project-b');
    mkdirSync(rootB);
    const hashB = projectHash(rootB);
    ensureProject(db, { hash: hashB, rootPath: rootB });
    const a = createSession(db, { projectId: hash, type: 'general', status: 'running', prompt: 'job in A' });
    const b = createSession(db, { projectId: hashB, type: 'coder', status: 'waiting', prompt: 'job in B' });
    db.close();
    // Run from project A: B is listed too.
    const r = await runKlaude(['sessions', '--projects'], { env: h.env, cwd: h.projectDir });
    expect(r.stderr).toBe('');
    const lines = r.stdout.split('\n');
    expect(lines[0]).toBe('2 projects · 1 running · 1 waiting · 0 queued');
    expect(lines[2]).toBe('needs you:');
    expect(lines[3]).toMatch(new RegExp(`^  ${shortId(b.id)}  project-b  coder  job in B$`));
    const headers = lines.filter((l) => l.startsWith('project '));
    expect(headers).toHaveLength(2);
    expect(r.stdout).toContain(`project ${rootB} (1 live)`);
    expect(r.stdout).toContain(`project ${h.projectDir} (1 live)`);
    expect(r.stdout.indexOf(shortId(a.id))).toBeGreaterThan(r.stdout.indexOf(`project ${h.projectDir}`));
    const json = JSON.parse(
      (await runKlaude(['sessions', '--projects', '--json'], { env: h.env, cwd: rootB })).stdout,
    ) as {
      projects: { root: string; sessions: { id: string }[] }[];
    };
    expect(json.projects.map((p) => [p.root, p.sessions.map((s) => s.id)]).sort()).toEqual(
      [
        [h.projectDir, [a.id]],
        [rootB, [b.id]],
      ].sort(),
    );
    const st = await runKlaude(['status', '--projects'], { env: h.env, cwd: h.projectDir });
    expect(st.stdout).toContain(`no klaude running in ${rootB}`);
    expect(st.stdout).toContain(`no klaude running in ${h.projectDir}`);
  });
});

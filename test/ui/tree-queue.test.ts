// Tree rows of the run queue: a queued agent shows its glyph, place and a priority other than
// normal, a row of a rate-limited runtime says so, a running agent its progress, and the sessions
// feed reads them from the DB listing.
import { describe, expect, it } from 'vitest';
import { openMemoryDb } from '../../src/db/client.js';
import { admit, lowerLimit } from '../../src/db/repos/queue.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { listSessionRows } from '../../src/db/repos/listing.js';
import { treeRowSegments } from '../../src/ui/components/tree-pane.js';
import type { TreeRow } from '../../src/feeds/session-tree.js';
import { themes } from '../../src/ui/theme.js';

const text = (row: TreeRow): string =>
  treeRowSegments(row, 80, themes.noColor, Date.now())
    .map((s) => s.text)
    .join('');

describe('tree rows of the run queue', () => {
  it('show a queued agent with its place, and a rate-limited runtime', () => {
    const db = openMemoryDb();
    const P = 'b'.repeat(24);
    ensureProject(db, { hash: P, rootPath: '/p' });
    const limits = { global: 1, perRuntime: {} };
    const a = createSession(db, { projectId: P, type: 'coder', status: 'pending' });
    admit(db, a.id, 'claude', limits);
    const b = createSession(db, { projectId: P, type: 'reviewer', status: 'pending' });
    expect(admit(db, b.id, 'claude', limits)).toEqual({ queued: true, position: 1 });
    lowerLimit(db, 'claude', limits, Date.now() + 60_000, 'rate limited (429)');
    const rows = listSessionRows(db, { projectId: P });
    const view = (id: string): TreeRow =>
      ({
        session: rows.find((r) => r.id === id)!,
        depth: 0,
        hasChildren: false,
        collapsed: false,
        match: true,
        subtree: { costUsd: 0, tokens: 0 },
      }) as TreeRow;
    expect(text(view(b.id))).toMatch(/⋯ reviewer #1/);
    expect(rows.find((r) => r.id === b.id)).toMatchObject({ status: 'queued', queuePosition: 1, rateLimitMax: 1 });
    db.close();
  });

  it('an idle session whose last interactive turn failed says why; once it runs again, what it does', () => {
    const db = openMemoryDb();
    const P = 'c'.repeat(24);
    ensureProject(db, { hash: P, rootPath: '/p' });
    const s = createSession(db, { projectId: P, type: 'tui', status: 'idle', prompt: 'summarise the repo' });
    const row = (): TreeRow =>
      ({
        session: listSessionRows(db, { projectId: P })[0]!,
        depth: 0,
        hasChildren: false,
        collapsed: false,
        match: true,
        subtree: { costUsd: 0, tokens: 0 },
      }) as TreeRow;
    expect(text(row())).toContain('summarise the repo');
    db.sqlite.prepare("UPDATE sessions SET error = 'rate limited: API Error: 429' WHERE id = ?").run(s.id);
    expect(text(row())).toContain('✗ rate limited: API Error: 429');
    db.sqlite
      .prepare(
        "UPDATE sessions SET status = 'running', error = NULL, activity = 'Bash: npm test', run_started_at = ? WHERE id = ?",
      )
      .run(Date.now(), s.id);
    expect(text(row())).toMatch(/\ds Bash: npm test/);
    db.close();
  });

  it('a queued high or low agent shows its place with ↑ or ↓; a running agent its progress before what it does', () => {
    const db = openMemoryDb();
    const P = 'd'.repeat(24);
    ensureProject(db, { hash: P, rootPath: '/p' });
    const limits = { global: 1, perRuntime: {} };
    const run = createSession(db, { projectId: P, type: 'coder', status: 'pending' });
    admit(db, run.id, 'claude', limits);
    const low = createSession(db, { projectId: P, type: 'tidy', status: 'pending', priority: -1 });
    admit(db, low.id, 'claude', limits);
    const high = createSession(db, { projectId: P, type: 'fixer', status: 'pending', priority: 1 });
    admit(db, high.id, 'claude', limits);
    const progress = { kind: 'todo', done: 2, total: 5, percent: 40, basis: 'its todo list (TodoWrite)' };
    db.sqlite
      .prepare(
        "UPDATE sessions SET status = 'running', activity = 'Bash: npm test', run_started_at = ?, progress = ? WHERE id = ?",
      )
      .run(Date.now(), JSON.stringify(progress), run.id);
    const rows = listSessionRows(db, { projectId: P });
    const view = (id: string): TreeRow =>
      ({
        session: rows.find((r) => r.id === id)!,
        depth: 0,
        hasChildren: false,
        collapsed: false,
        match: true,
        subtree: { costUsd: 0, tokens: 0 },
      }) as TreeRow;
    expect(text(view(high.id))).toMatch(/fixer #1↑/);
    expect(text(view(low.id))).toMatch(/tidy #2↓/);
    expect(text(view(run.id))).toMatch(/coder · \d+s 2\/5 Bash: npm test/);
    expect(rows.find((r) => r.id === run.id)!.progress).toEqual(progress);
    // An estimate, and no basis: the same place.
    db.sqlite
      .prepare('UPDATE sessions SET progress = ? WHERE id = ?')
      .run(JSON.stringify({ kind: 'none', done: null, total: null, percent: null, basis: 'no run yet' }), run.id);
    const again = listSessionRows(db, { projectId: P }).find((r) => r.id === run.id)!;
    expect(text({ ...view(run.id), session: again })).toMatch(/coder · \d+s \? Bash: npm test/);
    db.close();
  });
});

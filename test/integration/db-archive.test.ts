// Archiving a subtree is one transaction: every session or none (src/db/repos/sessions.ts setArchived).
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, getSession, setArchived } from '../../src/db/repos/sessions.js';

let root: string;
let db: Db;
const P = 'a'.repeat(24);
beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-archive-')));
  db = openDb(path.join(root, 'k'));
  ensureProject(db, { hash: P, rootPath: root });
});
afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('setArchived', () => {
  it('archives several sessions in one transaction, and brings them back', () => {
    const ids = [0, 1, 2].map(() => createSession(db, { projectId: P, type: 'general', status: 'done' }).id);
    let inside = false;
    const rows = setArchived(db, [...ids, 'no-such-id'], true, () => {
      inside = db.sqlite.inTransaction;
    });
    expect(inside).toBe(true);
    expect(rows.map((r) => r.id)).toEqual(ids);
    const at = rows[0]!.archivedAt;
    expect(at).toBeGreaterThan(0);
    expect(ids.map((id) => getSession(db, id)!.archivedAt)).toEqual([at, at, at]);
    setArchived(db, ids, false);
    expect(ids.map((id) => getSession(db, id)!.archivedAt)).toEqual([null, null, null]);
  });

  it('writes nothing when the check refuses', () => {
    const done = createSession(db, { projectId: P, type: 'general', status: 'done' });
    const running = createSession(db, { projectId: P, type: 'general', status: 'running' });
    expect(() =>
      setArchived(db, [done.id, running.id], true, (rows) => {
        if (rows.some((r) => r.status === 'running')) throw new Error('live');
      }),
    ).toThrow('live');
    expect(getSession(db, done.id)!.archivedAt).toBeNull();
    expect(getSession(db, running.id)!.archivedAt).toBeNull();
  });
});

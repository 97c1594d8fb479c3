import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { openDb, tx, type Db } from '../../src/db/client.js';
import { linkClaudeSession } from '../../src/db/repos/links.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { eq } from 'drizzle-orm';
import { resolveSession } from '../../src/db/repos/resolve.js';
import { sessionById } from '../../src/db/repos/session-row.js';
import { sessions } from '../../src/db/schema.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { KlaudeError } from '../../src/lib/errors.js';

const P1 = '1'.repeat(24);
const P2 = '2'.repeat(24);
// Fixed ids so prefixes/suffixes are deliberate.
const ROOT = '01JDQ8Z5K3N7V2W4X6Y8Z0R00T';
const A = '01JDQ8Z5K3N7V2W4X6Y8Z0ABCD';
const B = '01JDQ8Z5K3N7V2W4X6Y8Z0EFGH';
const OTHER = '01JDQ9BBBBBBBBBBBBBBBB1234';
const UUID_OLD = '11111111-2222-4333-8444-555555555555';
const UUID_NEW = '99999999-aaaa-4bbb-8ccc-dddddddddddd';
const CODEX = '0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b';

let root: string;
let db: Db;

beforeAll(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-db-resolve-')));
  db = openDb(path.join(root, 'k'));
  ensureProject(db, { hash: P1, rootPath: '/p1' });
  ensureProject(db, { hash: P2, rootPath: '/p2' });
  createSession(db, { id: ROOT, projectId: P1, type: 'tui', status: 'idle' });
  createSession(db, { id: A, projectId: P1, parentId: ROOT, type: 'general', status: 'running' });
  createSession(db, { id: B, projectId: P1, parentId: ROOT, type: 'reviewer', status: 'done' });
  createSession(db, { id: OTHER, projectId: P2, type: 'tui', runtime: 'codex', nativeSessionId: CODEX });
  // A ran Claude session UUID_OLD, then /clear moved it to UUID_NEW.
  linkClaudeSession(db, { klaudeSessionId: A, claudeSessionId: UUID_OLD, source: 'startup' });
  linkClaudeSession(db, { klaudeSessionId: A, claudeSessionId: UUID_NEW, source: 'clear' });
});
afterAll(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

function caught(fn: () => unknown): KlaudeError {
  try {
    fn();
  } catch (e) {
    if (e instanceof KlaudeError) return e;
    throw e;
  }
  throw new Error('expected a KlaudeError');
}

describe('resolveSession', () => {
  it.each([
    ['full ULID', A, A],
    ['full ULID, lower case', A.toLowerCase(), A],
    ['ULID suffix', 'ABCD', A],
    ['ULID suffix, lower case', 'efgh', B],
    ['ULID prefix unique across projects', '01JDQ9', OTHER],
    ['current Claude UUID', UUID_NEW, A],
    ['Claude UUID from before /clear (via links)', UUID_OLD, A],
    ['Claude UUID prefix', '99999999-aa', A],
    ['Claude UUID suffix via links', '5555', A],
    ['Codex thread id', CODEX, OTHER],
  ])('%s', (_name, input, expected) => {
    expect(resolveSession(db, input).id).toBe(expected);
  });

  it('ambiguous: lists the candidates with short id, type and status', () => {
    const e = caught(() => resolveSession(db, '01JDQ8'));
    expect(e.code).toBe('E_AMBIGUOUS_ID');
    expect(e.message).toContain(`${shortId(A)} (general, running)`);
    expect(e.message).toContain(`${shortId(B)} (reviewer, done)`);
    expect(e.message).toContain(`${shortId(ROOT)} (tui, idle)`);
    expect(e.message).not.toContain(shortId(OTHER));
    const ids = (e.details?.candidates as { id: string }[]).map((c) => c.id).sort();
    expect(ids).toEqual([A, B, ROOT].sort());
  });

  it('project scope', () => {
    expect(() => resolveSession(db, OTHER, { projectId: P1 })).toThrow(/no session matches/);
    expect(resolveSession(db, '1234', { projectId: P2 }).id).toBe(OTHER);
    expect(resolveSession(db, UUID_OLD, { projectId: P1 }).id).toBe(A);
    expect(() => resolveSession(db, UUID_OLD, { projectId: P2 })).toThrow(KlaudeError);
  });

  it('not found', () => {
    const e = caught(() => resolveSession(db, 'ZZZZZZ'));
    expect(e.code).toBe('E_SESSION_NOT_FOUND');
    expect(e.hint).toMatch(/klaude sessions/);
  });

  it('under 4 characters', () => {
    const e = caught(() => resolveSession(db, 'ABC'));
    expect(e.code).toBe('E_SESSION_NOT_FOUND');
    expect(e.hint).toMatch(/at least 4 characters/);
  });

  it('LIKE wildcards in the input are literal', () => {
    expect(() => resolveSession(db, '%%%%')).toThrow(/no session matches/);
    expect(() => resolveSession(db, '____')).toThrow(/no session matches/);
  });

  it('archived sessions still resolve; a native id shared by two sessions is ambiguous', () => {
    updateSession(db, B, { archivedAt: Date.now() });
    expect(resolveSession(db, 'EFGH').id).toBe(B);
    const shared = 'shared-native-0000';
    updateSession(db, ROOT, { nativeSessionId: shared });
    updateSession(db, B, { nativeSessionId: shared });
    expect(caught(() => resolveSession(db, shared)).code).toBe('E_AMBIGUOUS_ID');
    updateSession(db, ROOT, { nativeSessionId: null });
    updateSession(db, B, { nativeSessionId: null });
  });

  it('resolves among 2,000 sessions with links (suffix, link prefix, ambiguity)', () => {
    const many = path.join(root, 'many');
    const big = openDb(many);
    try {
      ensureProject(big, { hash: P1, rootPath: '/p1' });
      let last = '';
      tx(big, () => {
        for (let i = 0; i < 2000; i++) {
          const s = createSession(big, { projectId: P1, type: 'general' });
          linkClaudeSession(big, {
            klaudeSessionId: s.id,
            claudeSessionId: `uuid-${i}-${s.id.toLowerCase()}`,
            source: 'headless',
          });
          last = s.id;
        }
      });
      expect(resolveSession(big, last.slice(-10), { projectId: P1 }).id).toBe(last);
      expect(resolveSession(big, `uuid-1999-${last.slice(0, 4)}`, { projectId: P1 }).id).toBe(last);
      const e = caught(() => resolveSession(big, 'uuid-1', { projectId: P1 }));
      expect(e.code).toBe('E_AMBIGUOUS_ID');
      expect((e.details?.candidates as unknown[]).length).toBe(1111); // uuid-1, uuid-1x, 1xx, 1xxx
      expect(e.message).toMatch(/and 1101 more$/);
    } finally {
      big.close();
    }
  });
});

describe('sessionById (plain SQL, drizzle’s row shape)', () => {
  it('reads every column as drizzle’s select does, metadata parsed', () => {
    updateSession(db, B, {
      title: 't',
      prompt: 'p',
      model: 'm',
      transcriptPath: '/x.jsonl',
      logPath: '/x.ndjson',
      lastText: 'last',
      costUsd: 0.25,
      tokensIn: 10,
      tokensOut: 20,
      metadata: { worktree: true, n: [1, 2] },
      worktreePath: '/w',
      worktreeBranch: 'b',
      worktreeBase: 'abc',
      archivedAt: 5,
      endedAt: 6,
      activity: 'writing',
      runStartedAt: 7,
      error: 'e',
      queuedAt: 8,
    });
    for (const id of [ROOT, A, B, OTHER]) {
      const viaDrizzle = db.orm.select().from(sessions).where(eq(sessions.id, id)).get();
      expect(sessionById(db, id)).toEqual(viaDrizzle);
    }
    // Every column of the table is read (a new column must be added to SESSION_COLUMNS).
    const cols = (db.sqlite.prepare('PRAGMA table_info(sessions)').all() as { name: string }[]).length;
    expect(Object.keys(sessionById(db, B)!)).toHaveLength(cols);
    expect(sessionById(db, 'nope')).toBeUndefined();
  });
});

import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isUlid } from '../../src/core/ids.js';
import { openDb, type Db } from '../../src/db/client.js';
import { addEvent, sessionEvents } from '../../src/db/repos/events.js';
import {
  createInstance,
  endInstance,
  getInstance,
  listInstances,
  setInstanceRoot,
} from '../../src/db/repos/instances.js';
import {
  activeLink,
  endClaudeLink,
  findLinkByClaudeId,
  latestLink,
  linkClaudeSession,
  linksOf,
} from '../../src/db/repos/links.js';
import { listSessionRows } from '../../src/db/repos/listing.js';
import { currentProcesses, endProcess, recordProcess } from '../../src/db/repos/processes.js';
import { ensureProject, getProject } from '../../src/db/repos/projects.js';
import {
  childrenOf,
  createSession,
  findByNativeId,
  getSession,
  listSessions,
  updateSession,
} from '../../src/db/repos/sessions.js';
import { ackUpdates, addUpdate, pendingUpdates, takePendingUpdates } from '../../src/db/repos/updates.js';

const P = 'f'.repeat(24);
let root: string;
let db: Db;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-db-repos-')));
  db = openDb(path.join(root, 'k'));
  ensureProject(db, { hash: P, rootPath: '/proj' });
});
afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

describe('projects', () => {
  it('ensureProject is idempotent', () => {
    const a = getProject(db, P)!;
    const b = ensureProject(db, { hash: P, rootPath: '/proj' });
    expect(b).toEqual(a);
    expect(typeof a.createdAt).toBe('number');
  });
});

describe('instances', () => {
  it('create, root, list by project/status, end keeps the first end', () => {
    const i = createInstance(db, {
      projectId: P,
      pid: 42,
      socketPath: '/s.sock',
      cwd: '/proj',
      mode: 'cli',
      klaudeVersion: '0.1.0',
    });
    expect(isUlid(i.id)).toBe(true);
    expect(i.status).toBe('running');
    const s = createSession(db, { projectId: P, type: 'tui', instanceId: i.id });
    setInstanceRoot(db, i.id, s.id);
    expect(getInstance(db, i.id)?.rootSessionId).toBe(s.id);
    const j = createInstance(db, { projectId: P, pid: 43, socketPath: '/t.sock', cwd: '/proj', mode: 'ui' });
    expect(listInstances(db, { projectId: P, status: 'running' }).map((r) => r.id)).toEqual([i.id, j.id]);

    const ended = endInstance(db, i.id, { status: 'exited', exitCode: 0 })!;
    expect(ended.status).toBe('exited');
    expect(ended.exitCode).toBe(0);
    expect(ended.endedAt).toBeTypeOf('number');
    const again = endInstance(db, i.id, { status: 'stale' })!;
    expect(again.endedAt).toBe(ended.endedAt);
    expect(again.exitCode).toBe(0);
    expect(listInstances(db, { status: 'running' }).map((r) => r.id)).toEqual([j.id]);
    expect(endInstance(db, 'missing', { status: 'stale' })).toBeUndefined();
  });
});

describe('sessions', () => {
  it('create with defaults, update, list, children, archive', () => {
    const root = createSession(db, { projectId: P, type: 'tui' });
    expect(isUlid(root.id)).toBe(true);
    expect(root).toMatchObject({ status: 'pending', runtime: 'claude', parentId: null, metadata: null });
    expect(root.updatedAt).toBe(root.createdAt);
    const kid = createSession(db, {
      id: '01JDQ8Z5K3N7V2W4X6Y8Z0KID1',
      projectId: P,
      parentId: root.id,
      type: 'general',
      runtime: 'codex',
      metadata: { flags: ['-d'] },
    });
    expect(getSession(db, kid.id)?.metadata).toEqual({ flags: ['-d'] });

    const up = updateSession(db, kid.id, {
      status: 'running',
      lastText: 'hi',
      costUsd: 0.25,
      tokensIn: 10,
      title: undefined,
    })!;
    expect(up).toMatchObject({ status: 'running', lastText: 'hi', costUsd: 0.25, tokensIn: 10, runtime: 'codex' });
    expect(up.updatedAt).toBeGreaterThanOrEqual(kid.updatedAt);
    expect(updateSession(db, 'missing', { status: 'done' })).toBeUndefined();
    expect(updateSession(db, kid.id, { lastText: null })?.lastText).toBeNull();

    expect(childrenOf(db, root.id).map((s) => s.id)).toEqual([kid.id]);
    expect(listSessions(db, { projectId: P }).map((s) => s.id)).toEqual([root.id, kid.id]);
    updateSession(db, kid.id, { archivedAt: Date.now() });
    expect(listSessions(db, { projectId: P }).map((s) => s.id)).toEqual([root.id]);
    expect(listSessions(db, { projectId: P, includeArchived: true })).toHaveLength(2);
  });
});

describe('the session listing', () => {
  // Rows come back from SQLite as JSON (repos/listing.ts): every value must read back as stored.
  it('keeps texts, NULLs, integers and reals exactly as stored, oldest first', () => {
    const texts = [
      'plain',
      'quote " and \\ backslash',
      'nul \u0000 and \u001b[31m controls\n',
      'emoji 🦀 and 日本語',
      '\u2028 \ud83d',
    ];
    const costs = [0.1 + 0.2, 0.0123 * 3, 1e-7 / 3, 12345.678901234567, 0];
    const made = texts.map((prompt, i) => {
      const row = createSession(db, { projectId: P, type: 'general', status: 'done', prompt });
      db.sqlite.prepare('UPDATE sessions SET created_at = ? WHERE id = ?').run(1_700_000_000_000 + i, row.id);
      return updateSession(db, row.id, { costUsd: costs[i], lastText: i % 2 ? null : `last ${prompt}` })!;
    });
    const brief = listSessionRows(db, { projectId: P, detail: 'brief' });
    const full = listSessionRows(db, { projectId: P, detail: 'full' });
    expect(brief.map((r) => r.id)).toEqual(made.map((r) => r.id));
    for (const [i, r] of full.entries()) {
      const want = getSession(db, r.id)!;
      // Texts the listing cuts (substr) end at a NUL, as SQLite's substr reads them.
      const cut = (t: string | null): string | null => (t === null ? null : t.split('\u0000')[0]!);
      expect(r.prompt).toBe(cut(want.prompt));
      expect(r.lastText).toBe(cut(want.lastText));
      expect(r.costUsd).toBe(costs[i]);
      expect(r.createdAt).toBe(want.createdAt);
      expect(r.parentId).toBeNull();
      expect(brief[i]!.costUsd).toBeNull(); // brief leaves the detail columns out
    }
  });
});

describe('claude session links', () => {
  const OLD = 'aaaaaaaa-0000-4000-8000-000000000001';
  const NEW = 'bbbbbbbb-0000-4000-8000-000000000002';

  it('link at launch, hook confirms, /clear moves the native id, SessionEnd closes, resume reopens', () => {
    const s = createSession(db, { projectId: P, type: 'tui' });

    // klaude launches `claude --session-id OLD` and links before any hook fires
    linkClaudeSession(db, { klaudeSessionId: s.id, claudeSessionId: OLD, source: 'startup' });
    // SessionStart confirms it, now with the transcript path
    const confirmed = linkClaudeSession(db, {
      klaudeSessionId: s.id,
      claudeSessionId: OLD,
      source: 'startup',
      transcriptPath: '/t/old.jsonl',
    });
    expect(linksOf(db, s.id)).toHaveLength(1);
    expect(confirmed.transcriptPath).toBe('/t/old.jsonl');
    expect(getSession(db, s.id)).toMatchObject({ nativeSessionId: OLD, transcriptPath: '/t/old.jsonl' });
    expect(activeLink(db, s.id)?.claudeSessionId).toBe(OLD);

    // /clear: SessionEnd(reason clear) for OLD, SessionStart(source clear) with NEW
    const ended = endClaudeLink(db, OLD, 'clear')!;
    expect(ended.endReason).toBe('clear');
    expect(ended.endedAt).toBeTypeOf('number');
    expect(activeLink(db, s.id)).toBeUndefined();
    expect(getSession(db, s.id)?.nativeSessionId).toBe(OLD); // still resumable until the new one starts
    linkClaudeSession(db, {
      klaudeSessionId: s.id,
      claudeSessionId: NEW,
      source: 'clear',
      transcriptPath: '/t/new.jsonl',
    });
    expect(getSession(db, s.id)).toMatchObject({ nativeSessionId: NEW, transcriptPath: '/t/new.jsonl' });
    expect(activeLink(db, s.id)?.claudeSessionId).toBe(NEW);
    expect(latestLink(db, s.id)?.claudeSessionId).toBe(NEW);
    expect(findByNativeId(db, OLD)?.id).toBe(s.id); // the old id still finds its session
    expect(findByNativeId(db, NEW)?.id).toBe(s.id);
    expect(findLinkByClaudeId(db, OLD)).toMatchObject({ klaudeSessionId: s.id, endReason: 'clear' });

    // SessionEnd on exit closes the link; a repeat keeps the first reason
    endClaudeLink(db, NEW, 'prompt_input_exit');
    endClaudeLink(db, NEW, 'other');
    expect(findLinkByClaudeId(db, NEW)?.endReason).toBe('prompt_input_exit');
    expect(activeLink(db, s.id)).toBeUndefined();
    expect(latestLink(db, s.id)?.claudeSessionId).toBe(NEW);
    expect(endClaudeLink(db, 'unknown')).toBeUndefined();

    // checkout resumes OLD: the link reopens and becomes the latest; the open NEW… was closed already
    const reopened = linkClaudeSession(db, { klaudeSessionId: s.id, claudeSessionId: OLD, source: 'resume' });
    expect(reopened).toMatchObject({
      endedAt: null,
      endReason: null,
      source: 'resume',
      transcriptPath: '/t/old.jsonl',
    });
    expect(activeLink(db, s.id)?.claudeSessionId).toBe(OLD);
    expect(latestLink(db, s.id)?.claudeSessionId).toBe(OLD);
    expect(getSession(db, s.id)?.nativeSessionId).toBe(OLD);
  });

  it('a missed SessionEnd: the next link supersedes the open one', () => {
    const s = createSession(db, { projectId: P, type: 'tui' });
    linkClaudeSession(db, { klaudeSessionId: s.id, claudeSessionId: OLD, source: 'startup' });
    linkClaudeSession(db, { klaudeSessionId: s.id, claudeSessionId: NEW, source: 'clear' });
    expect(findLinkByClaudeId(db, OLD)?.endReason).toBe('superseded');
    expect(
      linksOf(db, s.id)
        .filter((l) => l.endedAt === null)
        .map((l) => l.claudeSessionId),
    ).toEqual([NEW]);
  });

  it('a Claude id keeps its first klaude owner; the other session still points at it', () => {
    const agent = createSession(db, { projectId: P, type: 'general' });
    const tui = createSession(db, { projectId: P, type: 'tui' });
    linkClaudeSession(db, { klaudeSessionId: agent.id, claudeSessionId: OLD, source: 'headless' });
    linkClaudeSession(db, { klaudeSessionId: tui.id, claudeSessionId: OLD, source: 'resume' });
    expect(findLinkByClaudeId(db, OLD)?.klaudeSessionId).toBe(agent.id);
    expect(getSession(db, tui.id)?.nativeSessionId).toBe(OLD);
  });
});

describe('processes', () => {
  it('record replaces the current one of the same kind; end is first-wins', () => {
    const s = createSession(db, { projectId: P, type: 'general' });
    const a = recordProcess(db, { klaudeSessionId: s.id, pid: 100, kind: 'runtime' });
    const sup = recordProcess(db, { klaudeSessionId: s.id, pid: 1, kind: 'supervisor' });
    expect(currentProcesses(db, s.id).map((p) => p.pid)).toEqual([1, 100]);
    const b = recordProcess(db, { klaudeSessionId: s.id, pid: 200, kind: 'runtime' });
    expect(currentProcesses(db, s.id, 'runtime').map((p) => p.id)).toEqual([b.id]);
    expect(currentProcesses(db, s.id).map((p) => p.id)).toEqual([b.id, sup.id]);

    const e = endProcess(db, b.id, { exitCode: null, signal: 'SIGTERM' })!;
    expect(e).toMatchObject({ isCurrent: 0, signal: 'SIGTERM', exitCode: null });
    expect(endProcess(db, b.id, { exitCode: 0 })).toBeUndefined();
    expect(currentProcesses(db, s.id, 'runtime')).toEqual([]);
    expect(a.isCurrent).toBe(1);
  });
});

describe('events and updates', () => {
  it('events append with growing ids', () => {
    const s = createSession(db, { projectId: P, type: 'general' });
    const e1 = addEvent(db, {
      projectId: P,
      klaudeSessionId: s.id,
      kind: 'hook.session_start',
      payload: { source: 'startup' },
    });
    const e2 = addEvent(db, { klaudeSessionId: s.id, kind: 'switch' });
    expect(e2).toBeGreaterThan(e1);
    expect(sessionEvents(db, s.id).map((e) => [e.kind, e.payload])).toEqual([
      ['hook.session_start', { source: 'startup' }],
      ['switch', null],
    ]);
    expect(sessionEvents(db, s.id, { afterId: e1 }).map((e) => e.id)).toEqual([e2]);
  });

  it('updates: pending, ack, take', () => {
    const parent = createSession(db, { projectId: P, type: 'tui' });
    const kid = createSession(db, { projectId: P, type: 'general', parentId: parent.id });
    const u1 = addUpdate(db, { sessionId: kid.id, parentSessionId: parent.id, text: 'one' });
    const u2 = addUpdate(db, { sessionId: kid.id, parentSessionId: parent.id, text: 'two' });
    expect(pendingUpdates(db, parent.id).map((u) => u.text)).toEqual(['one', 'two']);
    expect(ackUpdates(db, [u1.id])).toBe(1);
    expect(ackUpdates(db, [u1.id])).toBe(0);
    expect(ackUpdates(db, [])).toBe(0);
    expect(pendingUpdates(db, parent.id).map((u) => u.id)).toEqual([u2.id]);
    addUpdate(db, { sessionId: kid.id, parentSessionId: parent.id, text: 'three' });
    expect(takePendingUpdates(db, parent.id).map((u) => u.text)).toEqual(['two', 'three']);
    expect(takePendingUpdates(db, parent.id)).toEqual([]);
    expect(pendingUpdates(db, parent.id)).toEqual([]);
  });
});

// This machine's side of a zone, on real files and a real SQLite (docs/zones.md): the mirror keeps
// an agent's log a byte copy whatever order and overlap the chunks come in, its permission
// requests become rows here and take the zone's answers; a message key delivers once; the outbox
// keeps messages in the order they came, across processes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, getSession, updateSession } from '../../src/db/repos/sessions.js';
import { approvalsOf } from '../../src/db/repos/approvals.js';
import { pendingUpdates } from '../../src/db/repos/updates.js';
import { liveZoneNames, zoneMirrorIds } from '../../src/db/repos/zone-mirrors.js';
import { defaultConfig } from '../../src/config/schema.js';
import { createFileLogger } from '../../src/lib/logger.js';
import { Mirror } from '../../src/zones/mirror.js';
import { Outbox } from '../../src/zones/outbox.js';
import { onceByKey } from '../../src/zones/serve-keys.js';
import type { MirrorApproval } from '../../src/zones/wire.js';

let dir: string;
let db: Db;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'klaude-zone-mirror-'));
  db = openDb(dir);
  ensureProject(db, { hash: 'p'.repeat(24), rootPath: dir });
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

function mirrorRow(parentId: string | null = null): { id: string; logPath: string } {
  const s = createSession(db, {
    projectId: 'p'.repeat(24),
    parentId,
    type: 'general',
    status: 'pending',
    metadata: { zone: { name: 'build' } },
    logPath: join(dir, `${Math.random()}.ndjson`),
  });
  writeFileSync(s.logPath!, '');
  return { id: s.id, logPath: s.logPath! };
}

const mirror = (): Mirror =>
  new Mirror({ db, config: defaultConfig(), log: createFileLogger(join(dir, 'klaude.log'), 'test'), env: {} });

describe('the mirror of a zone’s agent', () => {
  it('keeps its log a byte copy: in order, overlap skipped, a gap asks again, a torn tail cut', () => {
    const s = mirrorRow();
    const m = mirror();
    const a = '{"type":"text","text":"one"}\n';
    const b = '{"type":"text","text":"twó"}\n'; // multi-byte: offsets are bytes
    const c = '{"type":"done","status":"done"}\n';
    expect(m.chunk(s.id, 0, a, false)).toEqual({ appended: a.length });
    expect(m.chunk(s.id, 0, a, false)).toEqual({ appended: 0 }); // seen already
    const ab = Buffer.byteLength(a + b);
    expect(m.chunk(s.id, ab, c, false)).toEqual({ resumeAt: a.length }); // b is missing: ask from the copy's end
    expect(m.chunk(s.id, 0, a + b, false)).toEqual({ appended: Buffer.byteLength(b) }); // the overlap is skipped
    expect(m.chunk(s.id, ab, Buffer.from(c).toString('base64'), true)).toEqual({ appended: c.length });
    expect(readFileSync(s.logPath, 'utf8')).toBe(a + b + c);

    // A crash mid-append left half a line: the next link cuts it and resumes from the last whole one.
    writeFileSync(s.logPath, a + b.slice(0, 5));
    expect(mirror().cursor(getSession(db, s.id)!)).toBe(a.length);
    expect(readFileSync(s.logPath, 'utf8')).toBe(a);
  });

  it('takes the row’s columns, and [UPDATE] lines become notes for its parent here', () => {
    const parent = createSession(db, { projectId: 'p'.repeat(24), type: 'tui' });
    const s = mirrorRow(parent.id);
    const m = mirror();
    m.chunk(s.id, 0, '{"type":"update","text":"half way"}\n', false);
    expect(pendingUpdates(db, parent.id).map((u) => u.text)).toEqual(['half way']);
    expect(zoneMirrorIds(db, 'build', { live: true })).toEqual([s.id]);
    expect(liveZoneNames(db)).toEqual(['build']);
    const row = m.row(s.id, {
      status: 'done',
      activity: null,
      error: null,
      endedAt: 5,
      runStartedAt: 1,
      costUsd: 0.5,
      tokensIn: 10,
      tokensOut: 20,
      lastText: 'finished',
      nativeSessionId: 'abc',
      model: null,
      runtime: 'claude',
      worktreeBranch: 'klaude/x-general',
      worktreeBase: 'f00',
      queuedAt: null,
      title: 'do it',
    });
    expect(row).toMatchObject({
      status: 'done',
      costUsd: 0.5,
      lastText: 'finished',
      worktreeBranch: 'klaude/x-general',
    });
    expect(zoneMirrorIds(db, 'build', { live: true })).toEqual([]);
    expect(liveZoneNames(db)).toEqual([]);
  });

  it('leaves alone an agent `klaude checkout` brought here: its row and log are this machine’s now', () => {
    const s = mirrorRow();
    const m = mirror();
    m.chunk(s.id, 0, '{"type":"text","text":"there"}\n', false);
    updateSession(db, s.id, { status: 'done', metadata: { fromZone: { name: 'build', host: 'box', at: 1 } } });
    writeFileSync(s.logPath, '{"type":"text","text":"there"}\n{"type":"status","status":"done"}\n');
    const late = '{"type":"text","text":"late"}\n';
    expect(m.chunk(s.id, Buffer.byteLength('{"type":"text","text":"there"}\n'), late, false)).toEqual({ appended: 0 });
    expect(readFileSync(s.logPath, 'utf8')).not.toContain('late');
    expect(m.row(s.id, { ...getSession(db, s.id)!, status: 'running' } as never)).toBeUndefined();
    expect(getSession(db, s.id)!.status).toBe('done');
    expect(zoneMirrorIds(db, 'build', { live: false })).toEqual([]);
  });

  it('records its permission requests here and takes the zone’s answers', () => {
    const s = mirrorRow();
    const m = mirror();
    const req: MirrorApproval = {
      requestId: 'toolu_1',
      tool: 'Bash',
      summary: 'rm -rf build',
      input: { command: 'rm -rf build' },
      suggestions: null,
      rule: 'Bash(rm:*)',
      reason: null,
      answer: null,
      message: null,
      by: null,
    };
    m.approvals(s.id, [req]);
    m.approvals(s.id, [req]); // the same list again adds nothing
    expect(approvalsOf(db, s.id)).toMatchObject([{ requestId: 'toolu_1', toolName: 'Bash', answer: null }]);
    m.approvals(s.id, [{ ...req, answer: 'allow', by: 'person at /dev/pts/3, through the zone link' }]);
    expect(approvalsOf(db, s.id)).toMatchObject([
      { requestId: 'toolu_1', answer: 'allow', answeredBy: 'person at /dev/pts/3, through the zone link' },
    ]);
  });
});

describe('a message key', () => {
  it('delivers once: the first call delivers, a later one gets the first result; a failure frees the key', async () => {
    let n = 0;
    const deliver = async (): Promise<{ n: number }> => ({ n: ++n });
    expect(await onceByKey(dir, 'KEY0000000001', deliver)).toEqual({ n: 1 });
    expect(await onceByKey(dir, 'KEY0000000001', deliver)).toEqual({ n: 1 });
    await expect(onceByKey(dir, 'KEY0000000002', () => Promise.reject(new Error('refused')))).rejects.toThrow(
      'refused',
    );
    expect(await onceByKey(dir, 'KEY0000000002', deliver)).toEqual({ n: 2 });
    // Two at once (a resend racing the first): one delivery.
    const both = await Promise.all([
      onceByKey(dir, 'KEY0000000003', deliver),
      onceByKey(dir, 'KEY0000000003', deliver),
    ]);
    expect(both).toEqual([{ n: 3 }, { n: 3 }]);
  });
});

describe('the outbox', () => {
  it('keeps messages in the order they came until each is removed, for any process that opens it', () => {
    const a = new Outbox(dir, 'build');
    const first = a.add('S1', 'one');
    const second = a.add('S1', 'two');
    const b = new Outbox(dir, 'build');
    expect(b.list().map((h) => h.prompt)).toEqual(['one', 'two']);
    b.remove(first);
    expect(a.list()).toEqual([second]);
    expect(a.size).toBe(1);
  });

  it('keeps a message given with its key once, however often a new link is asked to take it', () => {
    const a = new Outbox(dir, 'keyed');
    const held = a.add('S1', 'once', 'caller-key-0001');
    expect(new Outbox(dir, 'keyed').add('S1', 'once', 'caller-key-0001')).toEqual(held);
    expect(a.list()).toEqual([held]);
    expect(() => a.add('S1', 'x', '../../etc')).toThrow(/message key/);
  });
});

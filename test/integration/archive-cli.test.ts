// `klaude archive` / `klaude delete` through the built CLI on a seeded DB: subtrees go together,
// ids as shown resolve, anything running (status or a live process) is refused as a whole.
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sessionLogPath } from '../../src/config/paths.js';
import { shortId } from '../../src/core/ids.js';
import { recordProcess } from '../../src/db/repos/processes.js';
import { createSession, getSession, updateSession } from '../../src/db/repos/sessions.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let h: TempHome | undefined;
afterEach(() => {
  h?.cleanup();
  h = undefined;
});

function setup() {
  h = makeTempHome({ prefix: 'klaude-archive-' });
  const { db, hash } = seedProject(h);
  const root = createSession(db, { projectId: hash, type: 'tui', status: 'idle', prompt: 'hi' });
  const child = createSession(db, {
    projectId: hash,
    parentId: root.id,
    type: 'general',
    status: 'done',
    prompt: 'task',
  });
  const other = createSession(db, { projectId: hash, type: 'reviewer', status: 'running', prompt: 'review' });
  const log = sessionLogPath(h.klaudeHome, hash, child.id);
  mkdirSync(dirname(log), { recursive: true });
  writeFileSync(log, '{"type":"user","text":"task","ts":1}\n');
  return { db, hash, root, child, other, log };
}

const klaude = (args: string[]) => runKlaude(args, { env: h!.env, cwd: h!.projectDir });

describe('klaude archive / delete', () => {
  it('archives a finished session with its sub-agents by a prefix of the shown id, and restores them', async () => {
    const { db, root, child } = setup();
    const r = await klaude(['archive', shortId(root.id).slice(0, 4)]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      `${shortId(root.id)} (claude), ${shortId(child.id)} (general): archived (\`klaude sessions --all\` shows them)\n`,
    );
    expect(getSession(db, child.id)!.archivedAt).not.toBeNull();
    expect((await klaude(['sessions'])).stdout).not.toContain(shortId(child.id));
    const back = await klaude(['archive', shortId(root.id), '--restore', '--json']);
    expect(JSON.parse(back.stdout)).toEqual({ restored: [root.id, child.id] });
    expect(getSession(db, child.id)!.archivedAt).toBeNull();
    db.close();
  });

  it('refuses running sessions and sessions with a live process, changing nothing', async () => {
    const { db, root, other } = setup();
    const r = await klaude(['archive', shortId(root.id), shortId(other.id)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      new RegExp(
        `^klaude: ${shortId(other.id)} \\(reviewer\\) is running: only finished sessions can be archived \\[E_SESSION_BUSY\\] — hint: `,
      ),
    );
    expect(getSession(db, root.id)!.archivedAt).toBeNull();

    recordProcess(db, { klaudeSessionId: root.id, kind: 'claude', pid: process.pid });
    const d = await klaude(['delete', shortId(root.id)]);
    expect(d.code).toBe(1);
    expect(d.stderr).toContain(`has a live claude process (pid ${process.pid})`);
    expect(getSession(db, root.id)).toBeDefined();
    db.close();
  });

  it('refuses a queued agent (it would still start), saying how to take it out of the queue', async () => {
    const { db, hash } = setup();
    const queued = createSession(db, { projectId: hash, type: 'general', status: 'queued', prompt: 'later' });
    const r = await klaude(['archive', shortId(queued.id)]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `klaude: ${shortId(queued.id)} (general) is queued: only finished sessions can be archived [E_SESSION_BUSY] — ` +
        `hint: it would still start: take it out of the queue first (\`klaude interrupt ${shortId(queued.id)}\` cancels it)\n`,
    );
    expect(getSession(db, queued.id)!.archivedAt).toBeNull();
    db.close();
  });

  it('deletes finished sessions, their sub-agents and their logs', async () => {
    const { db, root, child, log } = setup();
    expect(existsSync(log)).toBe(true);
    const r = await klaude(['delete', shortId(root.id), '--json']);
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toEqual({ deleted: [root.id, child.id] });
    expect(getSession(db, root.id)).toBeUndefined();
    expect(getSession(db, child.id)).toBeUndefined();
    expect(existsSync(log)).toBe(false);
    const again = await klaude(['delete', shortId(root.id)]);
    expect(again.stderr).toMatch(/\[E_SESSION_NOT_FOUND\]/);
    db.close();
  });
});

describe('klaude wait on an interactive session', () => {
  it('prints its last text (from the Stop hook) as the final text', async () => {
    h = makeTempHome({ prefix: 'klaude-wait-tui-' });
    const { db, hash } = seedProject(h);
    const root = createSession(db, { projectId: hash, type: 'tui', status: 'done', prompt: 'hi' });
    updateSession(db, root.id, { lastText: 'The last words of the root.' });
    db.close();
    const r = await klaude(['wait', shortId(root.id)]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('final text:\nThe last words of the root.\n');
  });
});

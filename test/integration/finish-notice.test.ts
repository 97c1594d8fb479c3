// The supervisor's terminal hears when an agent finishes (bell / OSC 9, no text into claude's
// screen): a real DB file, statuses changed by another connection, the writes observed.
import { afterEach, expect, it } from 'vitest';
import { openDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { watchAgentFinishes } from '../../src/supervisor/finish-notice.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const PROJECT = 'b'.repeat(24);
let home: TempHome | undefined;
const dbs: Db[] = [];
afterEach(() => {
  for (const db of dbs.splice(0)) db.close();
  home?.cleanup();
});

async function until(pred: () => boolean, what: string, ms = 10_000): Promise<void> {
  const end = Date.now() + ms;
  while (!pred()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
const settle = (): Promise<void> => new Promise((r) => setTimeout(r, 400));

it('rings once per agent per ending; not for idle endings, the foreground, roots or old endings', async () => {
  home = makeTempHome({ prefix: 'klaude-finish-' });
  const db = openDb(home.klaudeHome);
  const other = openDb(home.klaudeHome);
  dbs.push(db, other);
  ensureProject(db, { hash: PROJECT, rootPath: home.projectDir });
  const worker = createSession(db, { projectId: PROJECT, type: 'coder', status: 'running' });
  const talker = createSession(db, { projectId: PROJECT, type: 'general', status: 'idle' });
  const front = createSession(db, { projectId: PROJECT, type: 'helper', status: 'running' });
  const root = createSession(db, { projectId: PROJECT, type: 'tui', status: 'running' });
  const old = createSession(db, { projectId: PROJECT, type: 'coder', status: 'done' });
  updateSession(db, old.id, { endedAt: Date.now() - 1000 });
  const writes: string[] = [];
  const stop = watchAgentFinishes({
    db,
    projectId: PROJECT,
    mode: 'both',
    inFront: (id) => id === front.id,
    write: (x) => writes.push(x),
  });
  try {
    updateSession(other, worker.id, { status: 'done', endedAt: Date.now() });
    await until(() => writes.length > 0, 'a notification');
    expect(writes).toEqual([`\x07\x1b]9;klaude: coder ${worker.id.slice(-8)} finished: done\x07`]);

    // Idle → done (a conversation someone closed), the foreground, a root, an old ending touched again: quiet.
    updateSession(other, talker.id, { status: 'done', endedAt: Date.now() });
    updateSession(other, front.id, { status: 'interrupted', endedAt: Date.now() });
    updateSession(other, root.id, { status: 'done', endedAt: Date.now() });
    updateSession(other, old.id, { title: 'renamed' });
    await settle();
    // Later writes re-read the same rows: no second ring.
    updateSession(other, worker.id, { title: 'still done' });
    await settle();
    expect(writes).toHaveLength(1);

    // An agent created and failed between two looks rings; one resumed and cancelled… rings again.
    const quick = createSession(other, { projectId: PROJECT, type: 'general' });
    updateSession(other, quick.id, { status: 'failed', endedAt: Date.now() });
    await until(() => writes.length === 2, 'the quick agent’s notification');
    expect(writes[1]).toBe(`\x07\x1b]9;klaude: general ${quick.id.slice(-8)} finished: failed\x07`);
    updateSession(other, worker.id, { status: 'running', endedAt: null });
    await settle();
    updateSession(other, worker.id, { status: 'interrupted', endedAt: Date.now() });
    await until(() => writes.length === 3, 'the resumed agent’s notification');
    expect(writes[2]).toBe(`\x07\x1b]9;klaude: coder ${worker.id.slice(-8)} finished: interrupted\x07`);
  } finally {
    stop();
  }
});

it('follows ui.notify: the bell alone, and nothing with none', async () => {
  home = makeTempHome({ prefix: 'klaude-finish-' });
  const db = openDb(home.klaudeHome);
  const other = openDb(home.klaudeHome);
  dbs.push(db, other);
  ensureProject(db, { hash: PROJECT, rootPath: home.projectDir });
  const a = createSession(db, { projectId: PROJECT, type: 'coder', status: 'waiting' });
  const b = createSession(db, { projectId: PROJECT, type: 'coder', status: 'running' });
  const bell: string[] = [];
  const none: string[] = [];
  const stops = [
    watchAgentFinishes({ db, projectId: PROJECT, mode: 'bell', inFront: () => false, write: (x) => bell.push(x) }),
    watchAgentFinishes({ db, projectId: PROJECT, mode: 'none', inFront: () => false, write: (x) => none.push(x) }),
  ];
  try {
    updateSession(other, a.id, { status: 'failed', endedAt: Date.now() });
    await until(() => bell.length > 0, 'the bell');
    updateSession(other, b.id, { status: 'cancelled', endedAt: Date.now() });
    await until(() => bell.length > 1, 'the second bell');
    await settle();
    expect(bell).toEqual(['\x07', '\x07']);
    expect(none).toEqual([]);
  } finally {
    for (const s of stops) s();
  }
});

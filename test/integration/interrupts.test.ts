// A turn the person interrupts runs no claude hook; the process running that claude ends the turn
// from the `[Request interrupted by user…]` line claude writes to its transcript. A real DB file, a
// real transcript file appended as claude does, real file notifications (no timers in the watch).
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { openDb, type Db } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, getSession } from '../../src/db/repos/sessions.js';
import { endInterruptedTurn, interruptAt, InterruptWatch } from '../../src/claude/transcript-follower.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const PROJECT = 'd'.repeat(24);
let home: TempHome | undefined;
let db: Db | undefined;
let watch: InterruptWatch | undefined;
afterEach(() => {
  watch?.close();
  db?.close();
  home?.cleanup();
});

const line = (o: object) => `${JSON.stringify(o)}\n`;
const prompt = (text: string, at: number) =>
  line({ type: 'user', timestamp: new Date(at).toISOString(), message: { role: 'user', content: text } });
const interrupt = (at: number, forTool = false) =>
  line({
    type: 'user',
    timestamp: new Date(at).toISOString(),
    message: {
      role: 'user',
      content: [{ type: 'text', text: `[Request interrupted by user${forTool ? ' for tool use' : ''}]` }],
    },
  });

function setUp(): { d: Db; id: string; transcript: string; start: (at: number) => void } {
  home = makeTempHome({ prefix: 'klaude-interrupts-' });
  const d = openDb(home.klaudeHome);
  db = d;
  ensureProject(d, { hash: PROJECT, rootPath: home.projectDir });
  // A project claude has never run in: not even the transcript's directory exists yet.
  const transcript = join(home.home, '.claude', 'projects', '-new-project', 'c0ffee.jsonl');
  const s = createSession(d, { projectId: PROJECT, type: 'tui', status: 'idle' });
  d.sqlite.prepare('UPDATE sessions SET transcript_path = ? WHERE id = ?').run(transcript, s.id);
  // What UserPromptSubmit writes.
  const start = (at: number) =>
    d.sqlite
      .prepare(
        "UPDATE sessions SET status = 'running', activity = 'thinking', run_started_at = ?, updated_at = ? WHERE id = ?",
      )
      .run(at, Date.now(), s.id);
  return { d, id: s.id, transcript, start };
}

it('reads the marker lines claude writes, and nothing else', () => {
  expect(interruptAt(interrupt(1_000))).toEqual({ at: 1_000, forTool: false });
  expect(interruptAt(interrupt(2_000, true))).toEqual({ at: 2_000, forTool: true });
  // A prompt that mentions the words is not the marker; nor is an assistant's text, nor a torn line.
  expect(interruptAt(prompt('why did you print [Request interrupted by user] there?', 3_000))).toBeNull();
  expect(
    interruptAt(
      line({
        type: 'assistant',
        timestamp: new Date(1).toISOString(),
        message: { content: [{ type: 'text', text: '[Request interrupted by user]' }] },
      }),
    ),
  ).toBeNull();
  expect(interruptAt('{"type":"user", "[Request interrupted by user')).toBeNull();
});

it('ends the running turn (idle, no activity) when the transcript says the person interrupted it', async () => {
  const { d, id, transcript, start } = setUp();
  watch = new InterruptWatch({ db: d, dbPath: d.path });
  const t0 = Date.now();
  start(t0);
  // Tracked mid-turn: the transcript is looked for at once, and it is not there yet.
  watch.track(id);
  // claude creates the transcript (and its directories) with the turn's first line.
  mkdirSync(dirname(transcript), { recursive: true });
  appendFileSync(transcript, prompt('write a long essay', t0 + 5));
  appendFileSync(
    transcript,
    line({
      type: 'assistant',
      timestamp: new Date(t0 + 50).toISOString(),
      message: { content: [{ type: 'text', text: 'Once' }] },
    }),
  );
  expect(getSession(d, id)).toMatchObject({ status: 'running', activity: 'thinking' });
  appendFileSync(transcript, interrupt(t0 + 100));
  await vi.waitFor(() => expect(getSession(d, id)).toMatchObject({ status: 'idle', activity: null }), {
    timeout: 10_000,
    interval: 20,
  });
  const ev = d.sqlite
    .prepare("SELECT payload FROM events WHERE klaude_session_id = ? AND kind = 'claude.interrupted'")
    .all(id) as { payload: string }[];
  expect(ev.map((e) => JSON.parse(e.payload))).toEqual([{ at: t0 + 100, forTool: false }]);

  // The next turn: the old marker, read again when the turn's watch starts, is older than the
  // turn and changes nothing; a permission declined in this turn ends it.
  const t1 = t0 + 1_000;
  start(t1);
  appendFileSync(transcript, prompt('touch a file', t1 + 5));
  appendFileSync(transcript, interrupt(t1 + 200, true));
  await vi.waitFor(() => expect(getSession(d, id)).toMatchObject({ status: 'idle', activity: null }), {
    timeout: 10_000,
    interval: 20,
  });
  const kinds = d.sqlite
    .prepare("SELECT payload FROM events WHERE klaude_session_id = ? AND kind = 'claude.interrupted' ORDER BY id")
    .all(id) as { payload: string }[];
  expect(kinds.map((e) => JSON.parse(e.payload))).toEqual([
    { at: t0 + 100, forTool: false },
    { at: t1 + 200, forTool: true },
  ]);
});

it('never ends a turn that started after the marker, nor a session that is not in a turn', () => {
  const { d, id, start } = setUp();
  const t0 = Date.now();
  start(t0);
  expect(endInterruptedTurn(d, id, t0 - 1, false)).toBe(false);
  expect(getSession(d, id)).toMatchObject({ status: 'running', activity: 'thinking' });
  d.sqlite.prepare("UPDATE sessions SET status = 'done' WHERE id = ?").run(id);
  expect(endInterruptedTurn(d, id, t0 + 1, false)).toBe(false);
  expect(getSession(d, id)?.status).toBe('done');
  d.sqlite.prepare("UPDATE sessions SET status = 'waiting' WHERE id = ?").run(id);
  expect(endInterruptedTurn(d, id, t0 + 1, true)).toBe(true);
  expect(getSession(d, id)).toMatchObject({ status: 'idle', activity: null });
});

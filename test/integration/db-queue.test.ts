// The run queue, checkpoints and artifacts in a real SQLite file: who may start (global and
// per-runtime limits, FIFO), a lowered limit after rate limiting, once-per-turn recovery claims,
// the resume prompt, and the onStop config's validation.
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/config.js';
import { openDb, type Db } from '../../src/db/client.js';
import { artifactMaps, artifactsOf, saveArtifact } from '../../src/db/repos/artifacts.js';
import {
  beginTurn,
  claimRecovery,
  endTurn,
  getCheckpoint,
  noteText,
  noteToolCall,
} from '../../src/db/repos/checkpoints.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import {
  admit,
  cancelQueued,
  launchesOver,
  lowerLimit,
  queuePosition,
  takeRunnable,
  type RunLimits,
} from '../../src/db/repos/queue.js';
import { createSession, getSession, updateSession } from '../../src/db/repos/sessions.js';
import { onStopPrompts } from '../../src/runtime/on-stop.js';
import { resumePrompt } from '../../src/agent-ops/recover.js';

const P = 'a'.repeat(24);
let root: string;
let db: Db;

beforeEach(() => {
  root = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-queue-db-')));
  db = openDb(path.join(root, 'k'));
  ensureProject(db, { hash: P, rootPath: '/proj' });
});
afterEach(() => {
  db.close();
  rmSync(root, { recursive: true, force: true });
});

const limits = (global: number, per: Record<string, number> = {}): RunLimits => ({ global, perRuntime: per });

/** A new agent as `start` makes it (pending), then admitted. */
function startOne(
  runtime: 'claude' | 'codex',
  l: RunLimits,
  at: number,
): { id: string; queued: boolean; position: number } {
  const s = createSession(db, { projectId: P, type: 'general', runtime, status: 'pending' });
  return { id: s.id, ...admit(db, s.id, runtime, l, at) };
}

const status = (id: string) => getSession(db, id)!.status;

describe('run queue', () => {
  it('admits up to the global limit, queues the rest in order, and starts them FIFO as runs end', () => {
    const l = limits(2);
    const a = [1, 2, 3, 4].map((i) => startOne('claude', l, 1000 + i));
    expect(a.map((x) => [x.queued, x.position])).toEqual([
      [false, 0],
      [false, 0],
      [true, 1],
      [true, 2],
    ]);
    expect(queuePosition(db, a[3]!.id)).toBe(2);
    expect(takeRunnable(db, l)).toEqual([]); // nothing ended: no slot
    updateSession(db, a[0]!.id, { status: 'done' });
    expect(takeRunnable(db, l)).toEqual([a[2]!.id]);
    expect(status(a[2]!.id)).toBe('pending');
    expect(queuePosition(db, a[3]!.id)).toBe(1);
    updateSession(db, a[1]!.id, { status: 'failed' });
    updateSession(db, a[2]!.id, { status: 'done' });
    expect(takeRunnable(db, l)).toEqual([a[3]!.id]); // one queued left, two slots
  });

  it('a new start never passes the head of the queue, even when a slot is free', () => {
    const l = limits(1);
    const a = startOne('claude', l, 1);
    const b = startOne('claude', l, 2);
    updateSession(db, a.id, { status: 'done' }); // slot free, b still queued (nobody called takeRunnable)
    const c = startOne('claude', l, 3);
    expect(c).toMatchObject({ queued: true, position: 2 });
    expect(takeRunnable(db, l)).toEqual([b.id]);
  });

  it('a runtime at its own limit lets agents of other runtimes go by; interrupt cancels a queued one', () => {
    const l = limits(0, { claude: 1 });
    const a = startOne('claude', l, 1);
    const b = startOne('claude', l, 2);
    const c = startOne('codex', l, 3);
    expect([a.queued, b.queued, c.queued]).toEqual([false, true, false]);
    const d = startOne('claude', l, 4);
    expect(cancelQueued(db, d.id)).toBe(true);
    expect(status(d.id)).toBe('cancelled');
    expect(cancelQueued(db, d.id)).toBe(false);
    updateSession(db, a.id, { status: 'done' });
    expect(takeRunnable(db, l)).toEqual([b.id]);
  });

  it('rate limiting halves the runtime limit for a while (at least 1); expired, it no longer applies', () => {
    const l = limits(4);
    const ids = [1, 2, 3, 4].map((i) => startOne('claude', l, i).id);
    const low = lowerLimit(db, 'claude', l, 10_000, 'rate limited (429)', 5_000);
    expect(low.maxRunning).toBe(2);
    for (const id of ids) updateSession(db, id, { status: 'done' });
    const more = [5, 6, 7].map((i) => startOne('claude', l, 5_000 + i));
    expect(more.map((m) => m.queued)).toEqual([false, false, true]);
    expect(takeRunnable(db, l, 9_000)).toEqual([]); // still lowered: two run
    expect(takeRunnable(db, l, 20_000)).toEqual([more[2]!.id]); // expired: the global 4 again
  });
});

describe('kept launch environments', () => {
  it('go when no run will be launched again: gone, or ended and not cut off in a turn recovery may resume', () => {
    const make = (st: 'queued' | 'running' | 'idle' | 'done' | 'failed' | 'cancelled' | 'interrupted') =>
      createSession(db, { projectId: P, type: 'general', runtime: 'claude', status: st }).id;
    const queued = make('queued');
    const running = make('running');
    const idle = make('idle');
    const done = make('done');
    const failed = make('failed');
    const cancelled = make('cancelled');
    const cutOff = make('interrupted'); // its runtime died mid-turn: recovery may resume it
    beginTurn(db, cutOff, 'work');
    const recovered = make('interrupted'); // that turn was recovered once already
    beginTurn(db, recovered, 'work');
    claimRecovery(db, recovered);
    const endedTurn = make('interrupted');
    beginTurn(db, endedTurn, 'work');
    endTurn(db, endedTurn);
    const gone = '01GONEGONEGONEGONEGONEGONE';
    const all = [queued, running, idle, done, failed, cancelled, cutOff, recovered, endedTurn, gone];
    expect(launchesOver(db, all, true)).toEqual([done, failed, cancelled, recovered, endedTurn, gone]);
    // agents.recover: off — nothing will resume the cut-off turn.
    expect(launchesOver(db, all, false)).toEqual([done, failed, cancelled, cutOff, recovered, endedTurn, gone]);
    expect(launchesOver(db, [], true)).toEqual([]);
  });
});

describe('checkpoints', () => {
  it('keeps the turn prompt, tool calls and partial answer; recovery is claimed once per turn', () => {
    const s = createSession(db, { projectId: P, type: 'general', status: 'running' });
    beginTurn(db, s.id, 'do the thing');
    noteToolCall(db, s.id, 'Bash: npm test');
    noteText(db, s.id, 'First block.');
    noteText(db, s.id, 'Sec', '\n\n');
    noteText(db, s.id, 'ond.', '');
    const cp = getCheckpoint(db, s.id)!;
    expect(cp).toMatchObject({
      turn: 1,
      inTurn: 1,
      prompt: 'do the thing',
      toolCalls: ['Bash: npm test'],
      partialText: 'First block.\n\nSecond.',
    });
    expect(claimRecovery(db, s.id)).not.toBeNull();
    expect(claimRecovery(db, s.id)).toBeNull(); // once per turn
    beginTurn(db, s.id, 'next');
    expect(getCheckpoint(db, s.id)).toMatchObject({ turn: 2, toolCalls: [], partialText: '' });
    expect(claimRecovery(db, s.id, { ask: 'its runtime died' })).toMatchObject({ askCause: 'its runtime died' });
    endTurn(db, s.id);
    expect(getCheckpoint(db, s.id)).toMatchObject({ inTurn: 0, askCause: null });
    expect(claimRecovery(db, s.id)).toBeNull(); // not in a turn: nothing to recover

    const text = resumePrompt(cp, 'claude was killed (SIGKILL) mid-turn');
    expect(text).toMatch(/^\[RESUME\] .*SIGKILL/);
    expect(text).toContain('- Bash: npm test');
    expect(text).toContain('First block.\n\nSecond.');
    expect(text.endsWith('The request of that turn was:\ndo the thing')).toBe(true);
  });
});

describe('artifacts and onStop config', () => {
  it('keeps the newest answer per name', () => {
    const s = createSession(db, { projectId: P, type: 'general', status: 'done' });
    saveArtifact(db, { sessionId: s.id, name: 'summary', text: 'old', costUsd: 0.01 });
    saveArtifact(db, { sessionId: s.id, name: 'complete', text: 'yes' });
    saveArtifact(db, { sessionId: s.id, name: 'summary', text: 'new' });
    expect(artifactsOf(db, s.id).map((a) => [a.name, a.text])).toContainEqual(['summary', 'new']);
    expect(artifactMaps(db, [s.id]).get(s.id)).toEqual({ summary: 'new', complete: 'yes' });
  });

  it('validates agents.onStop and merges a definition over the config by artifact name', () => {
    const { config } = parseConfig('agents:\n  onStop:\n    - prompt: one line\n      artifact: summary\n', 'c.yaml');
    expect(config['agents.onStop']).toEqual([{ prompt: 'one line', artifact: 'summary' }]);
    expect(() => parseConfig('agents:\n  onStop:\n    - prompt: x\n', 'c.yaml')).toThrow(/artifact must be a name/);
    expect(() => parseConfig('agents:\n  onStop: yes\n', 'c.yaml')).toThrow(/E_CONFIG|list of \{prompt, artifact\}/);
    expect(() => parseConfig('agents:\n  maxRunning: -1\n', 'c.yaml')).toThrow(/maxRunning/);
    expect(parseConfig('runtimes:\n  codex:\n    maxRunning: 3\n', 'c.yaml').config['runtimes.codex.maxRunning']).toBe(
      3,
    );
    expect(
      onStopPrompts(
        [
          { prompt: 'a', artifact: 'summary' },
          { prompt: 'b', artifact: 'complete' },
        ],
        [{ prompt: 'c', artifact: 'summary' }],
      ),
    ).toEqual([
      { prompt: 'b', artifact: 'complete' },
      { prompt: 'c', artifact: 'summary' },
    ]);
  });
});

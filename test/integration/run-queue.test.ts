// The run queue (agents.maxRunning) and on-stop artifacts (agents.onStop + a definition's onStop),
// with the real claude against the Messages-API stand-in: starts beyond the limit wait `queued` and
// start first in, first out when a run ends; interrupt cancels a queued agent; on-stop prompts run
// in the same conversation and their answers are kept as artifacts (DB, log, sessions --json,
// logs -s, wait).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { artifactsOf } from '../../src/db/repos/artifacts.js';
import { getSession } from '../../src/db/repos/sessions.js';
import { openAgentServices, type AgentServices } from '../../src/agent-ops/context.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { startAgents } from '../../src/agent-ops/start.js';
import { interruptAgent } from '../../src/agent-ops/message.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { killRuntimeGroups } from '../support/runtime-cleanup.js';

let mock: MockAnthropic;
let home: TempHome;
let svc: AgentServices;

beforeAll(async () => {
  mock = await startMockAnthropic({
    responder: (r) => {
      if (r.prompt.startsWith('ONSTOP summary')) return { text: 'SUMMARY: did the job' };
      if (r.prompt.startsWith('ONSTOP complete')) return { text: 'yes' };
      if (r.prompt.startsWith('slow')) return { text: `Slowly: ${r.prompt}`, chunks: 8, delayMs: 250 };
      return { text: `Reply to: ${r.prompt}` };
    },
  });
  home = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-queue-' });
  writeFileSync(
    join(home.klaudeHome, 'config.yaml'),
    [
      `claude:\n  binary: ${CLAUDE_BIN}`,
      'agents:\n  maxRunning: 2',
      '  onStop:\n    - prompt: "ONSTOP summary: what did you do, in one line?"\n      artifact: summary',
    ].join('\n') + '\n',
  );
  // An agent type adding its own on-stop prompt (the config's applies to every agent).
  mkdirSync(join(home.projectDir, '.claude', 'agents'), { recursive: true });
  writeFileSync(
    join(home.projectDir, '.claude', 'agents', 'reporter.md'),
    '---\nname: reporter\ndescription: reports\nonStop:\n  - prompt: "ONSTOP complete? yes, no or partial"\n    artifact: complete\n---\nReport.\n',
  );
  svc = openAgentServices({ env: home.env, cwd: home.projectDir, inv: { node: process.execPath, cli: KLAUDE_CLI } });
});

afterAll(async () => {
  // No runtime or CLI may outlive the tests (the last run may still be closing its CLI).
  if (svc?.db) killRuntimeGroups(svc.db.sqlite);
  svc?.db.close();
  await mock?.close();
  home?.cleanup();
});

const events = (id: string): AgentEvent[] =>
  readFileSync(getSession(svc.db, id)!.logPath!, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AgentEvent);

const klaude = (args: string[]) => runKlaude(args, { env: home.env, cwd: home.projectDir, timeoutMs: 60_000 });

async function start(prompt: string, type = 'general') {
  const out = await startAgents(svc, { type, prompt, cwd: home.projectDir });
  return { id: out.sessions[0]!.id, queued: out.queued[out.sessions[0]!.id] ?? 0 };
}

/** When the stand-in first saw the prompt of a main request. */
const firstSeen = (prompt: string): number => mock.mainRequests().find((r) => r.prompt === prompt)!.receivedAt;

describe('run queue (agents.maxRunning: 2)', () => {
  it('four starts: two run, two wait queued with their places; all four end done, first in first out', async () => {
    const jobs: { id: string; queued: number }[] = [];
    for (let i = 1; i <= 4; i++) jobs.push(await start(`slow job ${i}`));
    expect(jobs.map((j) => j.queued)).toEqual([0, 0, 1, 2]);
    expect(jobs.map((j) => getSession(svc.db, j.id)!.status)).toEqual([
      expect.stringMatching(/pending|running/),
      expect.stringMatching(/pending|running/),
      'queued',
      'queued',
    ]);

    // Listings say so: sessions --json (queuePosition) and the plain table (queued #n).
    const list = await klaude(['sessions', '--json']);
    expect(list.code).toBe(0);
    const rows = JSON.parse(list.stdout).flatMap(function flat(n: any): any[] {
      return [n, ...n.children.flatMap(flat)];
    });
    const byId = new Map(rows.map((r: any) => [r.id, r]));
    expect((byId.get(jobs[2]!.id) as any).queuePosition).toBe(1);
    expect((byId.get(jobs[3]!.id) as any).queuePosition).toBe(2);
    const table = await klaude(['sessions']);
    expect(table.stdout).toMatch(/queued #1/);
    expect(table.stdout).toMatch(/queued #2/);
    expect(events(jobs[2]!.id)[0]).toMatchObject({ type: 'queued', position: 1 });

    const r = await waitForAgents(
      svc,
      jobs.map((j) => getSession(svc.db, j.id)!),
      { timeoutMs: 150_000 },
    );
    expect(r.timedOut).toBe(false);
    expect(r.finished.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done']);

    // FIFO, no more than two at once: job 3 left the queue before job 4; it reached the model only
    // after one of 1 and 2 ended, job 4 only after two runs ended.
    const ended = [1, 2].map((i) => getSession(svc.db, jobs[i - 1]!.id)!.endedAt!).sort((a, b) => a - b);
    expect(firstSeen('slow job 3')).toBeGreaterThanOrEqual(ended[0]!);
    const dequeued = svc.db.sqlite
      .prepare("SELECT klaude_session_id FROM events WHERE kind = 'agent.dequeued' ORDER BY id")
      .pluck()
      .all();
    expect(dequeued.filter((id) => id === jobs[2]!.id || id === jobs[3]!.id)).toEqual([jobs[2]!.id, jobs[3]!.id]);
    const ended3 = getSession(svc.db, jobs[2]!.id)!.endedAt!;
    expect(firstSeen('slow job 4')).toBeGreaterThanOrEqual(Math.min(ended[1]!, ended3));
  }, 200_000);

  it('interrupt of a queued agent cancels it: cancelled, never run, the others unaffected', async () => {
    const a = await start('slow keep A');
    const b = await start('slow keep B');
    // `klaude start` says where it waits.
    const started = await klaude(['start', 'general', 'never run C', '-d']);
    expect(started.code).toBe(0);
    expect(started.stdout).toMatch(/^started (\w{8}) \(general, claude\): queued #1, starts when a run slot frees/);
    const short = /^started (\w{8})/.exec(started.stdout)![1]!;
    const c = {
      id: svc.db.sqlite.prepare('SELECT id FROM sessions WHERE id LIKE ?').pluck().get(`%${short}`) as string,
    };
    expect(getSession(svc.db, c.id)!.status).toBe('queued');
    await interruptAgent(svc, c.id);
    expect(getSession(svc.db, c.id)!.status).toBe('cancelled');
    expect(events(c.id).at(-1)).toMatchObject({ type: 'done', status: 'cancelled' });
    const out = await klaude(['interrupt', c.id]);
    expect(out.code).not.toBe(0); // already over: nothing to interrupt
    const r = await waitForAgents(svc, [getSession(svc.db, a.id)!, getSession(svc.db, b.id)!], { timeoutMs: 90_000 });
    expect(r.finished.map((s) => s.status)).toEqual(['done', 'done']);
    expect(mock.mainRequests().some((q) => q.prompt === 'never run C')).toBe(false);
    expect(getSession(svc.db, c.id)!.status).toBe('cancelled');
  }, 120_000);
});

describe('on-stop artifacts', () => {
  it('runs each on-stop prompt in the same conversation and keeps the answers as artifacts', async () => {
    const { id } = await start('write the report', 'reporter');
    const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 90_000 });
    expect(r.finished[0]!.status).toBe('done');
    const s = getSession(svc.db, id)!;

    // DB: the config's prompt first, then the definition's.
    expect(artifactsOf(svc.db, id).map((a) => [a.name, a.text])).toEqual([
      ['summary', 'SUMMARY: did the job'],
      ['complete', 'yes'],
    ]);
    // Same conversation: the on-stop request carries the work turn before it.
    const req = mock
      .mainRequests()
      .find(
        (q) => q.prompt.startsWith('ONSTOP complete') && JSON.stringify(q.body.messages).includes('write the report'),
      )!;
    expect(req).toBeDefined();
    expect(JSON.stringify(req.body.messages)).toContain('SUMMARY: did the job');

    // Log: the extra turns are marked (user source onStop, then an artifact event with its cost);
    // the run's done keeps the work's own answer, and its cost counts the extra turns.
    const ev = events(id);
    const art = ev.filter((e): e is Extract<AgentEvent, { type: 'artifact' }> => e.type === 'artifact');
    expect(art.map((e) => [e.name, e.text])).toEqual([
      ['summary', 'SUMMARY: did the job'],
      ['complete', 'yes'],
    ]);
    expect(art.every((e) => (e.costUsd ?? 0) > 0)).toBe(true);
    expect(ev.filter((e) => e.type === 'user' && e.source === 'onStop')).toHaveLength(2);
    const done = ev.at(-1)!;
    expect(done).toMatchObject({ type: 'done', status: 'done', finalText: 'Reply to: write the report' });
    expect(s.lastText).toBe('Reply to: write the report');
    const workCost = ev.filter((e) => e.type === 'usage').map((e) => (e as { costUsd?: number }).costUsd ?? 0)[0]!;
    expect(s.costUsd!).toBeGreaterThan(workCost);

    // Shown by sessions --json, logs -s and wait.
    const list = JSON.parse((await klaude(['sessions', '--json'])).stdout).flatMap(function flat(n: any): any[] {
      return [n, ...n.children.flatMap(flat)];
    });
    expect(list.find((x: any) => x.id === id).artifacts).toEqual({ summary: 'SUMMARY: did the job', complete: 'yes' });
    const summary = await klaude(['logs', '-s', id]);
    expect(summary.stdout).toMatch(/artifacts:\n {2}summary: SUMMARY: did the job\n {2}complete: yes/);
    const waited = await klaude(['wait', id]);
    expect(waited.code).toBe(0);
    expect(waited.stdout).toContain('complete: yes');
  }, 120_000);
});

describe('rate limiting', () => {
  it('a 429 seen as a retry lowers the runtime limit for a while, and the rows say so', async () => {
    mock.enqueue({
      error: { status: 429, type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit' },
    });
    const { id } = await start('after a rate limit');
    const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 90_000 });
    expect(r.finished[0]!.status).toBe('done');
    const ev = events(id);
    expect(ev.some((e) => e.type === 'retry' && e.kind === 'rate_limit')).toBe(true);
    expect(
      ev.some(
        (e) =>
          e.type === 'status' && /rate limited \(429\): claude runs at most 1 agent at once until/.test(e.reason ?? ''),
      ),
    ).toBe(true);
    const low = svc.db.sqlite
      .prepare("SELECT max_running AS max, until FROM runtime_limits WHERE runtime = 'claude'")
      .get() as { max: number; until: number };
    expect(low.max).toBe(1);
    expect(low.until).toBeGreaterThan(Date.now());

    // Now one claude agent at a time (agents.maxRunning says 2): the second waits, and says why.
    const a = await start('slow limited A');
    const b = await start('slow limited B');
    expect([a.queued, b.queued]).toEqual([0, 1]);
    const table = await klaude(['sessions']);
    expect(table.stdout).toMatch(/queued #1 \(rate-limited: claude max 1\)/);
    const done = await waitForAgents(svc, [getSession(svc.db, a.id)!, getSession(svc.db, b.id)!], {
      timeoutMs: 120_000,
    });
    expect(done.finished.map((s) => s.status)).toEqual(['done', 'done']);
    expect(firstSeen('slow limited B')).toBeGreaterThanOrEqual(getSession(svc.db, a.id)!.endedAt!);
  }, 200_000);
});

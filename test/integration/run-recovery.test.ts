// Recovery from a crash mid-turn (agents.recover), with the real claude against the Messages-API
// stand-in: the checkpoint (turn prompt, tool calls done, partial answer) becomes a [RESUME] prompt
// in the same conversation, whether the CLI is killed (the runtime's own watcher) or the runtime
// itself (found by `wait`'s recovery), at most once per turn; `ask` leaves it for the person.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { getSession } from '../../src/db/repos/sessions.js';
import { isAlive, sleep } from '../../src/lib/process.js';
import { openAgentServices, type AgentServices } from '../../src/agent-ops/context.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { liveRuntime } from '../../src/ownership/liveness.js';
import { startAgents } from '../../src/agent-ops/start.js';
import { deliverMessage } from '../../src/agent-ops/message.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic, type RecordedRequest } from '../support/mock-anthropic.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { killRuntimeGroups } from '../support/runtime-cleanup.js';

let mock: MockAnthropic;
let home: TempHome;
let svc: AgentServices;
/** Resume prompts answered slowly (so a second crash can hit the resumed turn). */
let slowResume = false;

const isResume = (r: RecordedRequest): boolean => r.prompt.startsWith('[RESUME]');

beforeAll(async () => {
  mock = await startMockAnthropic({
    responder: (r) => {
      if (isResume(r))
        return slowResume
          ? { text: 'Resuming slowly, part one. And more.', chunks: 30, delayMs: 300 }
          : { text: 'Resumed: finished the job.' };
      // The crash job: a Bash call first (a tool call done), then a slow answer to be cut off.
      if (r.isToolResult)
        return { text: 'Partial answer, part one.\nPart two comes slowly and never ends.', chunks: 60, delayMs: 250 };
      if (r.prompt.startsWith('crash job'))
        return { bash: { command: 'echo step-one-done', description: 'step one' }, text: 'Starting.' };
      return { text: `Reply to: ${r.prompt}` };
    },
  });
  home = makeTempHome({
    baseUrl: mock.url,
    prefix: 'klaude-recover-',
    settings: { permissions: { allow: ['Bash(echo:*)'] } },
  });
  writeConfig('auto');
  svc = openAgentServices({ env: home.env, cwd: home.projectDir, inv: { node: process.execPath, cli: KLAUDE_CLI } });
});

afterAll(async () => {
  // No runtime or CLI may outlive the tests (the last run may still be closing its CLI).
  if (svc?.db) killRuntimeGroups(svc.db.sqlite);
  svc?.db.close();
  await mock?.close();
  if (!process.env.KEEP_HOME) home?.cleanup();
});

/** The runtime reads the config file when it starts. */
function writeConfig(recover: string): void {
  writeFileSync(
    join(home.klaudeHome, 'config.yaml'),
    `claude:\n  binary: ${CLAUDE_BIN}\nagents:\n  recover: ${recover}\n`,
  );
  if (svc) svc.config['agents.recover'] = recover as 'auto';
}

const events = (id: string): AgentEvent[] =>
  readFileSync(getSession(svc.db, id)!.logPath!, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AgentEvent);

/** The text deltas of the log, joined (the answer as streamed so far). */
const streamed = (id: string): string =>
  events(id)
    .map((e) => (e.type === 'text_delta' ? e.text : ''))
    .join('');

async function until<T>(what: string, f: () => T | undefined | null | false, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = f();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

/** Start the crash job and wait until its slow answer is being written (a tool call done, partial text logged). */
async function startCrashJob(tag: string): Promise<string> {
  const out = await startAgents(svc, { type: 'general', prompt: `crash job ${tag}`, cwd: home.projectDir });
  const id = out.sessions[0]!.id;
  await until('partial text in the log', () => streamed(id).includes('part one.'));
  return id;
}

const cliPid = (id: string): number =>
  svc.db.sqlite
    .prepare(
      "SELECT pid FROM runtime_process WHERE klaude_session_id = ? AND kind = 'cli' AND exited_at IS NULL ORDER BY id DESC LIMIT 1",
    )
    .pluck()
    .get(id) as number;

function expectResumePrompt(r: RecordedRequest, tag: string): void {
  expect(r.prompt).toContain('Tool calls already made in that turn (1)');
  expect(r.prompt).toContain('Bash: echo step-one-done');
  expect(r.prompt).toContain('Partial answer, part one.');
  expect(r.prompt).toContain(`The request of that turn was:\ncrash job ${tag}`);
  // The same conversation: the earlier turn (the prompt, the Bash result) comes with it.
  const history = JSON.stringify(r.body.messages);
  expect(history).toContain(`crash job ${tag}`);
  expect(history).toContain('step-one-done');
}

describe('recovery from a crash mid-turn (agents.recover: auto)', () => {
  it('kill -9 of the CLI: the runtime resumes the conversation with the resume prompt and ends done', async () => {
    const id = await startCrashJob('A');
    const native = getSession(svc.db, id)!.nativeSessionId;
    const n = mock.requests.length;
    process.kill(cliPid(id), 'SIGKILL');
    const resumed = await mock.waitForRequest((r) => r.index >= n && isResume(r), 60_000);
    expectResumePrompt(resumed, 'A');
    const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 60_000 });
    expect(r.finished[0]).toMatchObject({ status: 'done', nativeSessionId: native });
    const ev = events(id);
    expect(ev.find((e) => e.type === 'recovered')).toMatchObject({
      mode: 'auto',
      cause: expect.stringContaining('SIGKILL'),
    });
    expect(ev.find((e) => e.type === 'user' && e.source === 'recover')).toBeDefined();
    expect(ev.at(-1)).toMatchObject({ type: 'done', status: 'done', finalText: 'Resumed: finished the job.' });
  }, 120_000);

  it('kill -9 of the runtime itself: wait finds the dead run and resumes it; it ends done', async () => {
    const id = await startCrashJob('B');
    const runtime = liveRuntime(svc.db, id)!;
    const n = mock.requests.length;
    process.kill(runtime.pid, 'SIGKILL'); // the runtime only: its CLI is ended as an orphan
    const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 90_000 });
    // Should it end otherwise, the log's story says how (a rare race under load was seen once).
    const story = events(id).map(
      (e) =>
        `${String(e.type)}${'status' in e ? `:${String(e.status)}` : ''}${'error' in e ? ` (${String(e.error)})` : ''}`,
    );
    expect(r.finished[0]!.status, story.join(' → ')).toBe('done');
    const resumed = mock.requests.find((q) => q.index >= n && isResume(q) && q.prompt.includes('crash job B'))!;
    expect(resumed).toBeDefined();
    expectResumePrompt(resumed, 'B');
    expect(resumed.prompt).toContain(`pid ${runtime.pid}`);
    const ev = events(id);
    expect(ev.filter((e) => e.type === 'recovered')).toHaveLength(1);
    expect(ev.at(-1)).toMatchObject({ type: 'done', status: 'done', finalText: 'Resumed: finished the job.' });
  }, 120_000);

  it('kill -9 of the runtime, then `klaude sessions`: reconcile finds it and recovery resumes it', async () => {
    const id = await startCrashJob('E');
    const runtime = liveRuntime(svc.db, id)!;
    const n = mock.requests.length;
    process.kill(runtime.pid, 'SIGKILL');
    await until('the runtime gone', () => !isAlive(runtime.pid));
    const list = await runKlaude(['sessions'], { env: home.env, cwd: home.projectDir, timeoutMs: 60_000 });
    expect(list.code, list.stderr).toBe(0);
    const resumed = await mock.waitForRequest(
      (r) => r.index >= n && isResume(r) && r.prompt.includes('crash job E'),
      60_000,
    );
    expectResumePrompt(resumed, 'E');
    const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 60_000 });
    expect(r.finished[0]!.status).toBe('done');
    expect(events(id).filter((e) => e.type === 'recovered')).toHaveLength(1);
  }, 120_000);

  it('a message to an agent whose runtime died unnoticed goes into the resume prompt; nothing says failed', async () => {
    const id = await startCrashJob('F');
    const runtime = liveRuntime(svc.db, id)!;
    // Nobody notices this death: its notice is gone first (as if the machine lost it).
    const notice = execFileSync('pgrep', ['-f', `klaude-death-notice .* __reap ${id}`], { encoding: 'utf8' }).trim();
    for (const pid of notice.split('\n')) process.kill(Number(pid), 'SIGKILL');
    const n = mock.requests.length;
    process.kill(runtime.pid, 'SIGKILL');
    await until('the runtime gone', () => !isAlive(runtime.pid));
    const r = await runKlaude(['message', id.slice(-8), 'and also say hello', '--json'], {
      env: home.env,
      cwd: home.projectDir,
      timeoutMs: 60_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ delivered: 'recovering' });
    const resumed = await mock.waitForRequest((q) => q.index >= n && isResume(q), 60_000);
    expectResumePrompt(resumed, 'F');
    expect(resumed.prompt).toContain("The person's message: and also say hello");
    const done = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 60_000 });
    expect(done.finished[0]!.status).toBe('done');
    const ev = events(id);
    expect(ev.filter((e) => e.type === 'done' && e.status === 'failed')).toHaveLength(0);
    expect(ev.at(-1)).toMatchObject({ type: 'done', status: 'done' });
  }, 120_000);

  it('a message queued in a runtime that is then killed is sent on by the recovery, not lost', async () => {
    const id = await startCrashJob('G');
    const d = await deliverMessage(svc, id, 'then also list the files');
    expect(d.delivered).toBe('stdin'); // held by the runtime until the turn ends
    const runtime = liveRuntime(svc.db, id)!;
    const n = mock.requests.length;
    process.kill(runtime.pid, 'SIGKILL');
    const resumed = await mock.waitForRequest((q) => q.index >= n && isResume(q), 60_000);
    expectResumePrompt(resumed, 'G');
    expect(resumed.prompt).toContain('Messages sent to you during that turn, not delivered before it stopped:');
    expect(resumed.prompt).toContain('then also list the files');
    const done = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 60_000 });
    expect(done.finished[0]!.status).toBe('done');
    expect(getSession(svc.db, id)!.metadata).not.toHaveProperty('undelivered');
  }, 120_000);

  it('recovers at most once per turn: a second crash in the resumed turn ends the run failed', async () => {
    slowResume = true;
    try {
      const id = await startCrashJob('C');
      const n = mock.requests.length;
      process.kill(cliPid(id), 'SIGKILL');
      await mock.waitForRequest((r) => r.index >= n && isResume(r), 60_000);
      await until('the resumed answer streaming', () => streamed(id).includes('slowly'));
      process.kill(cliPid(id), 'SIGKILL');
      const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 60_000 });
      expect(r.finished[0]!.status).toBe('failed');
      expect(events(id).filter((e) => e.type === 'recovered')).toHaveLength(1);
      expect(mock.requests.filter((q) => q.index >= n && isResume(q))).toHaveLength(1);
    } finally {
      slowResume = false;
    }
  }, 120_000);
});

describe('agents.recover: ask', () => {
  it('marks the session as needing the person; a message resumes it with the resume prompt', async () => {
    writeConfig('ask');
    try {
      const id = await startCrashJob('D');
      const n = mock.requests.length;
      process.kill(cliPid(id), 'SIGKILL');
      await until(
        'waiting for the person',
        () => getSession(svc.db, id)!.status === 'waiting' && !liveRuntime(svc.db, id),
      );
      expect(events(id).find((e) => e.type === 'recovered')).toMatchObject({ mode: 'ask' });
      // Nothing resumed it on its own, and a look by `wait` does not reap it.
      const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 2500 });
      expect(r.timedOut).toBe(true);
      expect(getSession(svc.db, id)!.status).toBe('waiting');
      expect(mock.requests.some((q) => q.index >= n && isResume(q))).toBe(false);

      const d = await deliverMessage(svc, id, 'go on please');
      expect(d.delivered).toBe('resumed');
      const resumed = await mock.waitForRequest((q) => q.index >= n && isResume(q), 60_000);
      expectResumePrompt(resumed, 'D');
      expect(resumed.prompt).toContain("The person's message: go on please");
      const done = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 60_000 });
      expect(done.finished[0]!.status).toBe('done');
    } finally {
      writeConfig('auto');
    }
  }, 120_000);
});

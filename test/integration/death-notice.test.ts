// Deaths noticed when they happen, with nothing open and no command run: SIGKILL of an agent's
// runtime, with the real claude against the Messages-API stand-in, is recorded and recovered
// (agents.recover: auto) or recorded with why (off), and the next queued agent starts — within 2 s,
// by the runtime's death notice (`klaude __reap`), not by a later look.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { getSession } from '../../src/db/repos/sessions.js';
import { currentProcesses } from '../../src/db/repos/processes.js';
import { getCheckpoint } from '../../src/db/repos/checkpoints.js';
import { openAgentServices, type AgentServices } from '../../src/agent-ops/context.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { liveRuntime } from '../../src/ownership/liveness.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { killRuntimeGroups } from '../support/runtime-cleanup.js';
import { runKlaude } from '../support/klaude-bin.js';
import { until } from '../support/until.js';

let mock: MockAnthropic;
let home: TempHome;
let svc: AgentServices;

beforeAll(async () => {
  mock = await startMockAnthropic({
    responder: (r) => {
      if (r.prompt.startsWith('[RESUME]')) return { text: 'Resumed: finished the job.' };
      if (r.prompt.startsWith('slow job'))
        return { text: 'Part one of a slow answer.\nThe rest never comes in time.', chunks: 80, delayMs: 250 };
      return { text: `Reply to: ${r.prompt}` };
    },
  });
  home = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-death-' });
  svc = openAgentServices({ env: home.env, cwd: home.projectDir, inv: { node: process.execPath, cli: KLAUDE_CLI } });
});

afterAll(async () => {
  if (svc?.db) killRuntimeGroups(svc.db.sqlite);
  svc?.db.close();
  await mock?.close();
  if (!process.env.KEEP_HOME) home?.cleanup();
});

/** The runtime reads the config file when it starts (and so does its reaper). */
function writeConfig(recover: string): void {
  writeFileSync(
    join(home.klaudeHome, 'config.yaml'),
    `claude:\n  binary: ${CLAUDE_BIN}\nagents:\n  recover: ${recover}\n  maxRunning: 1\n`,
  );
  svc.config['agents.recover'] = recover as 'auto';
  svc.config['agents.maxRunning'] = 1;
}

const events = (id: string): AgentEvent[] =>
  readFileSync(getSession(svc.db, id)!.logPath!, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as AgentEvent);

/**
 * `klaude start --json` from a shell, which returns at once: the runtime's parent is gone, so when
 * the runtime dies it is init's to reap — at once, late or never (scripts/lazy-init.py), as on the
 * person's machine. Started from this test process instead, it would be reaped by us at once.
 */
async function startDetached(prompt: string): Promise<string> {
  const r = await runKlaude(['start', 'general', prompt, '--json'], { env: home.env, cwd: home.projectDir });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { sessions: { id: string }[] }).sessions[0]!.id;
}

/** Start a slow job and wait until its answer is being written (mid-turn). */
async function startSlowJob(tag: string): Promise<string> {
  const id = await startDetached(`slow job ${tag}`);
  const streamed = (): string =>
    events(id)
      .map((e) => (e.type === 'text_delta' ? e.text : ''))
      .join('');
  await until('the answer streaming', () => streamed().includes('Part one'), 60_000);
  return id;
}

describe('a runtime killed with nothing else running', () => {
  it('auto: with nobody looking, the dead run is recorded and its recovery starts; it ends done', async () => {
    writeConfig('auto');
    const id = await startSlowJob('A');
    const dead = liveRuntime(svc.db, id)!;
    process.kill(dead.pid, 'SIGKILL');
    // Recorded and recovery started: the dead runtime's row ended as lost, the turn's recovery claimed.
    await until(
      'the recovery claimed',
      () => {
        const cp = getCheckpoint(svc.db, id);
        return (
          !!cp &&
          cp.recoveredTurn === cp.turn &&
          !currentProcesses(svc.db, id, 'runtime').some((p) => p.pid === dead.pid)
        );
      },
      30_000,
    );
    const done = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 60_000 });
    expect(done.finished[0]!.status).toBe('done');
    const ev = events(id);
    expect(ev.find((e) => e.type === 'recovered')).toMatchObject({ cause: expect.stringContaining(`pid ${dead.pid}`) });
    expect(ev.at(-1)).toMatchObject({ type: 'done', status: 'done', finalText: 'Resumed: finished the job.' });
  }, 120_000);

  it('off: with nobody looking, the run is recorded interrupted with why, and the queued agent behind it starts', async () => {
    writeConfig('off');
    const id = await startSlowJob('B');
    const next = await startDetached('next in line');
    expect(getSession(svc.db, next)!.status).toBe('queued');
    const dead = liveRuntime(svc.db, id)!;
    process.kill(dead.pid, 'SIGKILL');
    await until(
      'the run recorded and the queue advanced',
      () => getSession(svc.db, id)!.status === 'interrupted' && getSession(svc.db, next)!.status !== 'queued',
      30_000,
    );
    expect(getSession(svc.db, id)!.error).toContain(`runtime (pid ${dead.pid}) died`);
    expect(events(id).at(-1)).toMatchObject({ type: 'done', status: 'interrupted' });
    const r = await waitForAgents(svc, [getSession(svc.db, next)!], { timeoutMs: 60_000 });
    expect(r.finished[0]!.status).toBe('done');
    expect(getSession(svc.db, next)!.lastText).toBe('Reply to: next in line');
  }, 120_000);
});

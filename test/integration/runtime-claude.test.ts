// The agent runtime driving the real `claude -p` (stream-json) against the Messages-API stand-in:
// log + DB lifecycle, tool calls, follow-ups (queued during a turn, resumed after it), interrupt,
// SIGTERM, and a runtime that dies without a word.
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { activeLink, latestLink } from '../../src/db/repos/links.js';
import { currentProcesses } from '../../src/db/repos/processes.js';
import { getSession } from '../../src/db/repos/sessions.js';
import { createSession } from '../../src/db/repos/sessions.js';
import { pendingUpdates } from '../../src/db/repos/updates.js';
import { KlaudeError } from '../../src/lib/errors.js';
import { waitForPidExit } from '../../src/lib/process.js';
import { openAgentServices, type AgentServices } from '../../src/agent-ops/context.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { liveRuntime } from '../../src/ownership/liveness.js';
import { agentSocketPath } from '../../src/control/agent-socket.js';
import { startAgents } from '../../src/agent-ops/start.js';
import { deliverMessage, interruptAgent } from '../../src/agent-ops/message.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { killRuntimeGroups } from '../support/runtime-cleanup.js';

let mock: MockAnthropic;
let home: TempHome;
let svc: AgentServices;

beforeAll(async () => {
  mock = await startMockAnthropic({
    responder: (r) => {
      if (r.isToolResult) return { text: `Tool said: ${r.toolResults.map((t) => t.content).join(' ')}` };
      if (r.prompt.startsWith('run: '))
        return { bash: { command: r.prompt.slice(5), description: 'asked' }, text: 'Running it.' };
      if (r.prompt.startsWith('hang')) return { hang: true };
      if (r.prompt.startsWith('slow')) return { text: `Slowly: ${r.prompt}`, chunks: 6, delayMs: 150 };
      if (r.prompt.startsWith('report')) return { text: 'Working.\n[UPDATE] half way there\nDone.' };
      return { text: `Reply to: ${r.prompt}` };
    },
  });
  home = makeTempHome({ baseUrl: mock.url });
  writeFileSync(join(home.klaudeHome, 'config.yaml'), `claude:\n  binary: ${CLAUDE_BIN}\n`);
  svc = openAgentServices({ env: home.env, cwd: home.projectDir, inv: { node: process.execPath, cli: KLAUDE_CLI } });
});

afterAll(async () => {
  // No runtime may outlive the tests.
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

async function start(prompt: string, extra: { parentId?: string } = {}): Promise<string> {
  const out = await startAgents(svc, { type: 'general', prompt, cwd: home.projectDir, ...extra });
  expect(out.sessions).toHaveLength(1);
  return out.sessions[0]!.id;
}

/** The run's process itself has exited (it records the end in the DB first, then stops its CLI and exits). */
async function runtimeGone(id: string): Promise<void> {
  const pids = (
    svc.db.sqlite
      .prepare("SELECT pid FROM runtime_process WHERE klaude_session_id = ? AND kind = 'runtime'")
      .all(id) as { pid: number }[]
  ).map((r) => r.pid);
  for (const pid of pids) expect(await waitForPidExit(pid, 20_000)).toBe(true);
}

async function finished(id: string, timeoutMs = 60_000) {
  const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs });
  expect(r.timedOut).toBe(false);
  return getSession(svc.db, id)!;
}

describe('agent runtime with the real claude', () => {
  it('runs a prompt to done: log events, final text and cost in the DB, headless link, process row closed', async () => {
    const id = await start('say hello');
    // Linked before the runtime even ran: the id was chosen up front.
    const link = activeLink(svc.db, id);
    expect(link).toMatchObject({ source: 'headless' });
    const s = await finished(id);
    expect(s).toMatchObject({
      status: 'done',
      lastText: 'Reply to: say hello',
      nativeSessionId: link!.claudeSessionId,
    });
    expect(s.costUsd).toBeGreaterThan(0);
    expect(s.tokensIn).toBeGreaterThan(0);
    expect(s.endedAt).not.toBeNull();

    const ev = events(id);
    // Streamed pieces (--include-partial-messages) come before the whole text that closes them.
    expect(ev.map((e) => e.type).filter((t, i, all) => t !== 'text_delta' || all[i - 1] !== 'text_delta')).toEqual([
      'status',
      'user',
      'init',
      'text_delta',
      'text',
      'usage',
      'done',
    ]);
    expect(
      ev
        .filter((e) => e.type === 'text_delta')
        .map((e) => (e as { text: string }).text)
        .join(''),
    ).toBe('Reply to: say hello');
    expect(s.activity).toBeNull();
    expect(s.runStartedAt).toBeGreaterThan(0);
    expect(ev[1]).toMatchObject({ type: 'user', text: 'say hello', source: 'start' });
    expect(ev.find((e) => e.type === 'init')).toMatchObject({ nativeSessionId: link!.claudeSessionId });
    expect(ev[2]).toMatchObject({
      type: 'init',
      runtime: 'claude',
      nativeSessionId: link!.claudeSessionId,
      cwd: home.projectDir,
    });
    expect(ev.at(-1)).toMatchObject({
      type: 'done',
      status: 'done',
      finalText: 'Reply to: say hello',
      costUsd: s.costUsd,
    });

    // The runtime is gone and said so; its socket with it.
    await runtimeGone(id);
    const rows = svc.db.sqlite
      .prepare("SELECT * FROM runtime_process WHERE klaude_session_id = ? AND kind = 'runtime'")
      .all(id) as {
      exited_at: number | null;
      exit_code: number | null;
      is_current: number;
    }[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ exit_code: 0, is_current: 0 });
    expect(rows[0]!.exited_at).not.toBeNull();
    expect(existsSync(agentSocketPath(svc.home, svc.projectHash, id, home.env))).toBe(false);
    // The agent was told who it is and about [UPDATE] lines.
    const req = mock.mainRequests().find((r) => r.prompt === 'say hello')!;
    expect(JSON.stringify(req.body.system)).toContain('klaude sub-agent');
  });

  it('records a Bash tool call as tool_call + tool_result, and [UPDATE] lines for the parent', async () => {
    const parent = createSession(svc.db, { projectId: svc.projectHash, type: 'tui', status: 'idle' });
    const id = await start('run: echo marker-$((6*7))', { parentId: parent.id });
    const s = await finished(id);
    expect(s.status).toBe('done');
    const ev = events(id);
    const call = ev.find((e) => e.type === 'tool_call');
    expect(call).toMatchObject({ name: 'Bash', summary: 'echo marker-$((6*7))' });
    expect(ev.find((e) => e.type === 'tool_result')).toMatchObject({
      id: (call as { id: string }).id,
      name: 'Bash',
      isError: false,
      output: 'marker-42',
    });
    expect(ev.at(-1)).toMatchObject({ type: 'done', finalText: 'Tool said: marker-42', numTurns: 2 });
    expect(s.parentId).toBe(parent.id);
    // The injected PostToolUse hook ran for the agent (how nested agents get their children's updates).
    const kinds = (
      svc.db.sqlite.prepare('SELECT kind FROM events WHERE klaude_session_id = ?').all(id) as { kind: string }[]
    ).map((e) => e.kind);
    expect(kinds).toContain('hook.PostToolUse');
    expect(kinds).not.toContain('hook.SessionStart');

    const reporter = await start('report progress', { parentId: parent.id });
    await finished(reporter);
    expect(events(reporter).filter((e) => e.type === 'update')).toEqual([
      expect.objectContaining({ text: 'half way there' }),
    ]);
    expect(pendingUpdates(svc.db, parent.id)).toEqual([
      expect.objectContaining({ sessionId: reporter, text: 'half way there' }),
    ]);
  });

  it("--share appends the parent's recent conversation (from its transcript) to the first message", async () => {
    const transcript = join(home.root, 'parent-transcript.jsonl');
    writeFileSync(
      transcript,
      [
        { type: 'user', message: { role: 'user', content: 'We decided to rename Foo to Bar.' } },
        { type: 'assistant', message: { content: [{ type: 'text', text: 'Renamed in three files.' }] } },
      ]
        .map((l) => JSON.stringify(l))
        .join('\n') + '\n',
    );
    const parent = createSession(svc.db, {
      projectId: svc.projectHash,
      type: 'tui',
      status: 'idle',
      transcriptPath: transcript,
    });
    const out = await startAgents(svc, {
      type: 'general',
      prompt: 'continue the rename',
      share: true,
      parentId: parent.id,
      cwd: home.projectDir,
    });
    expect(out.notes).toEqual([]);
    const id = out.sessions[0]!.id;
    await finished(id);
    const req = mock.mainRequests().find((r) => r.prompt.startsWith('continue the rename'))!;
    expect(req.prompt).toMatch(
      /^continue the rename\n\n<parent-context>\n\nRecent conversation of session \w{8}, which started you/,
    );
    expect(req.prompt).toContain(
      'user: We decided to rename Foo to Bar.\n\nassistant: Renamed in three files.\n\n</parent-context>',
    );
    // The log keeps the prompt and the shared block apart.
    expect(
      events(id)
        .filter((e) => e.type === 'user')
        .map((e) => (e as { source: string }).source),
    ).toEqual(['start', 'share']);

    const none = await startAgents(svc, {
      type: 'general',
      prompt: 'nothing to share',
      share: true,
      parentId: createSession(svc.db, { projectId: svc.projectHash, type: 'tui' }).id,
      cwd: home.projectDir,
    });
    expect(none.notes).toEqual([
      expect.stringMatching(/^--share: no conversation found for \w{8}; started without shared context$/),
    ]);
    await finished(none.sessions[0]!.id);
  });

  it('continues the same Claude session: a message after the run resumes it, and the stand-in sees the earlier turns', async () => {
    const id = await start('remember the word PAPAYA');
    await finished(id);
    const native = getSession(svc.db, id)!.nativeSessionId;

    const d = await deliverMessage(svc, id, 'which word?');
    expect(d).toMatchObject({ delivered: 'resumed', nativeSessionId: native });
    const s = await finished(id);
    expect(s).toMatchObject({ status: 'done', nativeSessionId: native, lastText: 'Reply to: which word?' });
    const req = mock.mainRequests().find((r) => r.prompt === 'which word?')!;
    const history = JSON.stringify(req.body.messages);
    expect(history).toContain('remember the word PAPAYA');
    expect(history).toContain('Reply to: remember the word PAPAYA');
    expect(latestLink(svc.db, id)).toMatchObject({ claudeSessionId: native, source: 'headless' });

    const ev = events(id);
    expect(ev.filter((e) => e.type === 'done')).toHaveLength(2);
    expect(ev.filter((e) => e.type === 'user').map((e) => (e as { source: string }).source)).toEqual([
      'start',
      'message',
    ]);
    expect(ev.find((e) => e.type === 'status' && e.reason === 'resumed')).toBeDefined();
    // Cost accumulates over the runs.
    const dones = ev.filter((e) => e.type === 'done') as { costUsd: number }[];
    expect(dones[1]!.costUsd).toBeGreaterThan(dones[0]!.costUsd);
    expect(s.costUsd).toBeCloseTo(dones[1]!.costUsd, 10);
  });

  it('queues messages sent during a turn and sends them together as the next turn of the same run', async () => {
    const id = await start('slow story');
    await mock.waitForRequest((r) => r.prompt === 'slow story');
    const a = await deliverMessage(svc, id, 'first aside');
    const b = await deliverMessage(svc, id, 'second aside');
    expect(a.delivered).toBe('stdin');
    expect(b.delivered).toBe('stdin');
    const s = await finished(id);
    expect(s.status).toBe('done');
    const next = mock.mainRequests().find((r) => r.prompt.includes('first aside'))!;
    expect(next.prompt).toBe('first aside\n\nsecond aside');
    const ev = events(id);
    // One run, one ending: the queued turn ran before the runtime finished.
    expect(ev.filter((e) => e.type === 'done')).toHaveLength(1);
    expect(ev.filter((e) => e.type === 'status')).toHaveLength(1);
    expect(ev.at(-1)).toMatchObject({ type: 'done', finalText: 'Reply to: first aside\n\nsecond aside' });
    expect(ev.findIndex((e) => e.type === 'user' && e.text === 'first aside')).toBeGreaterThan(
      ev.findIndex((e) => e.type === 'text'),
    );
  });

  it('interrupts a turn that hangs: the run ends interrupted, and a second interrupt is E_AGENT_NOT_RUNNING', async () => {
    const id = await start('hang here');
    await mock.waitForRequest((r) => r.prompt === 'hang here');
    await interruptAgent(svc, id);
    const s = await finished(id, 30_000);
    expect(s.status).toBe('interrupted');
    expect(events(id).at(-1)).toMatchObject({ type: 'done', status: 'interrupted' });
    const err = await interruptAgent(svc, id).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KlaudeError);
    expect((err as KlaudeError).code).toBe('E_AGENT_NOT_RUNNING');
    // An interrupted agent takes messages again (resumed).
    await expect(deliverMessage(svc, id, 'are you there?')).resolves.toMatchObject({ delivered: 'resumed' });
    expect((await finished(id)).status).toBe('done');
  });

  it('an interrupt with a message queued ends the run interrupted and does not send the message on', async () => {
    const id = await start('hang with a queue');
    await mock.waitForRequest((r) => r.prompt === 'hang with a queue');
    await expect(deliverMessage(svc, id, 'queued behind the hang')).resolves.toMatchObject({ delivered: 'stdin' });
    await interruptAgent(svc, id);
    const s = await finished(id, 30_000);
    expect(s.status).toBe('interrupted');
    const ev = events(id);
    // One turn, cut off: counted as one (claude's num_turns says 2).
    expect(ev.at(-1)).toMatchObject({ type: 'done', status: 'interrupted', numTurns: 1 });
    expect(
      ev.some(
        (e) =>
          e.type === 'error' &&
          e.message.includes('1 queued message(s) not sent because the turn was interrupted: "queued behind the hang"'),
      ),
    ).toBe(true);
    expect(mock.mainRequests().some((r) => r.prompt.includes('queued behind the hang'))).toBe(false);
  });

  it('records interrupted when the runtime is stopped with SIGTERM to its group (checkout does this)', async () => {
    const id = await start('hang again');
    await mock.waitForRequest((r) => r.prompt === 'hang again');
    const live = liveRuntime(svc.db, id)!;
    expect(live).not.toBeNull();
    process.kill(-live.pid, 'SIGTERM');
    const s = await finished(id, 30_000);
    expect(s.status).toBe('interrupted');
    expect(events(id).at(-1)).toMatchObject({ type: 'done', status: 'interrupted' });
    await runtimeGone(id);
    expect(currentProcesses(svc.db, id, 'runtime')).toEqual([]);
  });

  it('a line the CLI still writes after SIGTERM does not land after the closing done', async () => {
    // The real claude under a wrapper that answers SIGTERM with one more assistant line (captured
    // from claude) before passing the signal on: what a pipe may hold when the stop comes, made certain.
    const late = readFileSync(join(import.meta.dirname, '../fixtures/claude/print-text.ndjson'), 'utf8')
      .split('\n')
      .find((l) => l.startsWith('{"type":"assistant"'))!
      .replace('Hello from the stand-in.', 'late words');
    const lateFile = join(home.root, 'late.ndjson');
    writeFileSync(lateFile, `${late}\n`);
    const wrapper = join(home.root, 'claude-late.sh');
    // sh gives a background job /dev/null for stdin unless it is redirected from another descriptor.
    const script = [
      '#!/bin/sh',
      'exec 3<&0',
      `"${CLAUDE_BIN}" "$@" <&3 3<&- &`,
      'pid=$!',
      `trap 'cat "${lateFile}"; kill -TERM $pid; wait $pid; exit 143' TERM`,
      'wait $pid',
    ];
    writeFileSync(wrapper, `${script.join('\n')}\n`, { mode: 0o700 });
    const config = join(home.klaudeHome, 'config.yaml');
    const before = readFileSync(config, 'utf8');
    writeFileSync(config, `claude:\n  binary: ${wrapper}\n`);
    svc.config['claude.binary'] = wrapper;
    try {
      const id = await start('hang late');
      await mock.waitForRequest((r) => r.prompt === 'hang late');
      // The runtime alone: it records the stop, then signals its CLI, so the late line surely comes
      // after the stop (a signal to the whole group lets the line race the runtime's own handler).
      process.kill(liveRuntime(svc.db, id)!.pid, 'SIGTERM');
      expect((await finished(id, 30_000)).status).toBe('interrupted');
      await runtimeGone(id);
      const ev = events(id);
      expect(ev.at(-1)).toMatchObject({ type: 'done', status: 'interrupted' });
      expect(ev.some((e) => e.type === 'text' && e.text.includes('late words'))).toBe(false);
    } finally {
      writeFileSync(config, before);
      svc.config['claude.binary'] = CLAUDE_BIN;
    }
  });

  it('ends a run whose runtime was killed outright, with a closing done in the log naming it (agents.recover: off)', async () => {
    const id = await start('hang forever');
    await mock.waitForRequest((r) => r.prompt === 'hang forever');
    const live = liveRuntime(svc.db, id)!;
    // Off for whoever notices the death first: this process's reconcile or the runtime's death
    // notice, which reads the config file (test/integration/run-recovery.test.ts covers auto).
    const config = join(home.klaudeHome, 'config.yaml');
    const before = readFileSync(config, 'utf8');
    writeFileSync(config, `${before}agents:\n  recover: 'off'\n`);
    svc.config['agents.recover'] = 'off';
    process.kill(-live.pid, 'SIGKILL');
    const s = await finished(id, 30_000).finally(() => {
      svc.config['agents.recover'] = 'auto';
      writeFileSync(config, before);
    });
    // Recorded by whichever notices first: the death notice (interrupted) or a reconcile (failed),
    // each naming the dead runtime.
    expect(['failed', 'interrupted']).toContain(s.status);
    expect(events(id).at(-1)).toMatchObject({
      type: 'done',
      status: s.status,
      error: expect.stringContaining(`pid ${live.pid}`),
    });
  });
});

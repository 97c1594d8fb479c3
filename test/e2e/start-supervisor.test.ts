// From inside a running `klaude`: the foreground Claude runs `klaude start` in its Bash tool; the
// start goes through the supervisor's socket, the agent is a child of the foreground session, its
// live output and summary come back as the tool result; `start -c` checks the new agent out; a
// detached agent outlives the supervisor.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Responder } from '../support/mock-anthropic.js';
import type { PtySession } from '../support/pty-driver.js';
import {
  instances,
  processes,
  READY,
  sessions,
  startKlaude,
  submit,
  waitBelow,
  waitForDb,
} from './supervisor-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

let home: AgentHome;
let term: PtySession | undefined;
let releaseDetached!: () => void;
const detachedGate = new Promise<void>((r) => (releaseDetached = r));

const responder: Responder = async (req) => {
  if (req.prompt === 'sub task from claude') return { text: 'Sub-agent result: 42' };
  if (req.prompt === 'take me there') return { text: 'Agent side of the conversation.' };
  if (req.prompt === 'outlive the supervisor') {
    await detachedGate;
    return { text: 'Finished after the supervisor.' };
  }
  if (req.isToolResult)
    return {
      text: `Tool output: ${req.toolResults
        .map((t) => t.content)
        .join(' ')
        .slice(0, 2000)}`,
    };
  const m = /^run: (.+)$/s.exec(req.prompt);
  if (m) return { bash: { command: m[1]!.trim(), description: 'requested command' } };
  return undefined;
};

const fx = useAgentHomes({ responder });

beforeAll(() => {
  home = fx.home({ supervisor: true });
});
afterAll(async () => {
  releaseDetached();
  await term?.dispose();
});

describe('klaude start from Claude’s Bash tool inside klaude', () => {
  it('goes through the supervisor, nests under the foreground session, and returns the agent’s output as the tool result', async () => {
    term = startKlaude(home);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    const [inst] = instances(home);
    const [root] = sessions(home);

    await submit(term, 'run: klaude start general "sub task from claude"');
    const toolTurn = await fx.mock.waitForRequest(
      (r) => r.isToolResult && r.toolResults.some((t) => t.content.includes('── agent')),
      60_000,
    );
    const output = toolTurn.toolResults[0]!.content;
    expect(output).toMatch(
      /^started (\w{8}) \(general, claude\)\nfollowing it \(Ctrl-C detaches; the agent keeps running\)\nSub-agent result: 42\n── agent \1 \(general\): done · /,
    );
    expect(output).toContain('final text:\nSub-agent result: 42');

    const agent = sessions(home).find((s) => s.type === 'general')!;
    expect(agent).toMatchObject({
      parent_id: root!.id,
      instance_id: inst!.id,
      status: 'done',
      last_text: 'Sub-agent result: 42',
    });
    await term.waitForText('Tool output: started', { timeoutMs: 30_000 });
  });

  it('start -c switches the foreground Claude into the new agent’s conversation', async () => {
    await submit(term!, 'run: klaude start general "take me there" -c');
    const agent = await waitForDb('the agent to check out', () =>
      sessions(home).find((s) => s.prompt === 'take me there'),
    );
    // The foreground claude now runs the agent's session: a claude process of klaude's for it, its first message on screen.
    await waitForDb(
      'the foreground on the agent',
      () =>
        processes(home).find((p) => p.klaude_session_id === agent.id && p.exited_at === null && p.kind === 'claude'),
      60_000,
    );
    // A cleared screen with klaude's line, the agent's conversation below it.
    await waitBelow(term!, `klaude: switched to ${agent.id.slice(-8)} (general) — \`klaude checkout\` to go back`, [
      '❯ take me there',
      READY,
    ]);
    expect(term!.text()).not.toContain('Bash(klaude start general "take me there" -c)');
    expect(instances(home)[0]).toMatchObject({ status: 'running' });
  });

  it('a detached agent keeps running when the supervisor exits, and its log is complete', async () => {
    await submit(term!, 'run: klaude start general "outlive the supervisor" -d');
    await fx.mock.waitForRequest((r) => r.prompt === 'outlive the supervisor', 60_000);
    const agent = await waitForDb('the detached agent', () =>
      sessions(home).find((s) => s.prompt === 'outlive the supervisor'),
    );
    await term!.waitForText(/Tool output: started \w{8}/, { timeoutMs: 30_000 });

    await submit(term!, '/exit');
    expect((await term!.exited).exitCode).toBe(0);
    expect(instances(home)[0]).toMatchObject({ status: 'exited' });
    expect(sessions(home).find((s) => s.id === agent.id)!.status).toBe('running');

    releaseDetached();
    const w = await home.k(['wait', agent.id], { timeoutMs: 60_000 });
    expect(w.code).toBe(0);
    expect(w.stdout).toContain('final text:\nFinished after the supervisor.');
    const logs = await home.k(['logs', agent.id, '--raw']);
    const types = logs.stdout
      .trim()
      .split('\n')
      .map((l) => (JSON.parse(l) as { type: string }).type);
    // (text pieces streamed before the whole text)
    expect(types.filter((t) => t !== 'text_delta')).toEqual(['status', 'user', 'init', 'text', 'usage', 'done']);
    expect(types.indexOf('text_delta')).toBeGreaterThan(types.indexOf('init'));
  });
});

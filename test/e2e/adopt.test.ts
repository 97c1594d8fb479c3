// `klaude --resume <claude id>` of a conversation klaude never recorded, with the real claude
// against the stand-in: a conversation made with plain `claude -p` in the project is adopted as a
// new top-level session (no failure), claude opens on it showing its turn, the next prompt carries
// the earlier one, and `klaude sessions` lists it. An id with no transcript is still refused.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClaude } from '../support/claude-bin.js';
import type { PtySession } from '../support/pty-driver.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { links, READY, sessions, startKlaude, submit, waitForDb } from './supervisor-helpers.js';

const fx = useAgentHomes({ responder: (r) => ({ text: `Reply to: ${r.prompt}` }) });
let home: AgentHome;
let term: PtySession | undefined;

beforeAll(() => {
  home = fx.home({ supervisor: true, config: false });
});

afterAll(async () => {
  await term?.dispose();
});

describe('klaude --resume of a conversation klaude never recorded (real claude)', () => {
  it('adopts it into the tree and opens claude on it', async () => {
    const claudeId = randomUUID();
    const made = await runClaude(['-p', 'adopt-marker-41', '--session-id', claudeId], {
      cwd: home.projectDir,
      env: home.env,
    });
    expect(made.code, made.stderr).toBe(0);

    term = startKlaude(home, ['--resume', claudeId]);
    await term.waitForText(READY, { timeoutMs: 60_000 });
    await term.waitForText('Reply to: adopt-marker-41', { timeoutMs: 30_000 });
    const [root] = sessions(home);
    expect(sessions(home)).toHaveLength(1);
    expect(root).toMatchObject({
      parent_id: null,
      type: 'tui',
      native_session_id: claudeId,
      prompt: 'adopt-marker-41',
    });
    await waitForDb('SessionStart(resume) of the adopted conversation', () =>
      links(home).find((l) => l.claude_session_id === claudeId && l.source === 'resume' && l.ended_at === null),
    );

    await submit(term, 'after-adopt-42');
    await term.waitForText('Reply to: after-adopt-42', { timeoutMs: 45_000 });
    expect(JSON.stringify(fx.mock.mainRequests().at(-1)!.body.messages)).toContain('adopt-marker-41');

    const listed = await home.k(['sessions', '--json']);
    const rows = JSON.parse(listed.stdout) as { id: string; nativeSessionId: string }[];
    expect(rows.map((r) => r.id)).toEqual([root!.id]);
    expect((await home.k(['sessions'])).stdout).toContain('adopt-marker-41');

    // The adopted (interactive) session can be forked: a general agent beside it, on its conversation.
    const forked = await home.k(['fork', root!.id, 'fork-of-tui-43', '--json']);
    expect(forked.stderr).toBe('');
    const fork = JSON.parse(forked.stdout) as { id: string; type: string; parentId: string | null };
    expect(fork).toMatchObject({ type: 'general', parentId: null });
    expect((await home.k(['wait', fork.id], { timeoutMs: 60_000 })).code).toBe(0);
    const forkRequest = JSON.stringify(
      fx.mock.mainRequests().find((r) => JSON.stringify(r.body).includes('fork-of-tui-43'))!.body,
    );
    expect(forkRequest).toContain('after-adopt-42');

    await submit(term, '/exit');
    expect((await term.exited).exitCode).toBe(0);
  });

  it('still refuses an id with no conversation here, before anything is recorded', async () => {
    await term?.dispose();
    const unknown = randomUUID();
    term = startKlaude(home, ['--resume', unknown]);
    expect((await term.exited).exitCode).not.toBe(0);
    expect(term.text()).toContain('E_SESSION_NOT_FOUND');
    expect(sessions(home)).toHaveLength(2); // the adopted one and its fork: nothing new
  });
});

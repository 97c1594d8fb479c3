// `klaude` runs the real claude in the foreground: hooks link it, the person talks to it,
// Claude's Bash tool reaches klaude, Ctrl-C is claude's, /exit ends the supervisor with
// claude's code, and `klaude --resume-last` brings the conversation back.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlRequest } from '../../src/control/client.js';
import type { PtySession } from '../support/pty-driver.js';
import {
  eventKinds,
  instances,
  links,
  processes,
  READY,
  readDb,
  runResponder,
  sessions,
  startKlaude,
  submit,
  waitForDb,
} from './supervisor-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const MODEL = 'claude-passthrough-model';
const fx = useAgentHomes({ responder: runResponder });
let home: AgentHome;
let term: PtySession | undefined;

beforeAll(() => {
  home = fx.home({ supervisor: true, config: false });
});
afterAll(async () => {
  await term?.dispose();
});

describe('klaude: foreground claude', () => {
  it('links the hooked claude to the root session, answers, runs `klaude status` from Bash, and exits with claude’s code', async () => {
    term = startKlaude(home, ['--', '--model', MODEL]);
    await term.waitForText(READY, { timeoutMs: 45_000 });

    // Registered: one running instance (this process), its root TUI session, claude linked.
    const [inst] = instances(home);
    expect(inst).toMatchObject({ pid: term.pid, status: 'running' });
    expect(existsSync(inst!.socket_path)).toBe(true);
    const [root] = sessions(home);
    expect(root).toMatchObject({ type: 'tui', parent_id: null, instance_id: inst!.id });
    expect(inst!.root_session_id).toBe(root!.id);
    // The SessionStart hook confirmed the id klaude chose (--session-id) and added the transcript.
    const hooked = await waitForDb(
      'the SessionStart hook',
      () =>
        eventKinds(home, root!.id).includes('hook.SessionStart') &&
        links(home).find((l) => l.klaude_session_id === root!.id),
    );
    expect(hooked).toMatchObject({ source: 'startup', ended_at: null });
    // Only the hook's payload knows where claude keeps the transcript.
    expect(
      readDb(home, (db) => db.prepare('SELECT transcript_path AS t FROM claude_session_links').get() as { t: string })
        .t,
    ).toMatch(new RegExp(`/\\.claude/projects/[^/]+/${hooked.claude_session_id}\\.jsonl$`));
    expect(sessions(home)[0]!.native_session_id).toBe(hooked.claude_session_id);
    expect(processes(home)).toMatchObject([
      { klaude_session_id: root!.id, instance_id: inst!.id, exited_at: null, is_current: 1 },
    ]);

    // Ctrl-C typed in the terminal reaches claude (its exit hint) and not klaude, which lives on.
    term.press('ctrl-c');
    await term.waitForText(/Press Ctrl-C again to exit/i);
    await expect(controlRequest(inst!.socket_path, 'ping', {})).resolves.toMatchObject({ pong: true, pid: term.pid });
    await term.waitForGone(/Press Ctrl-C again to exit/i, { timeoutMs: 20_000 });

    await submit(term, 'hello from the person');
    await term.waitForText('Reply to: hello from the person', { timeoutMs: 45_000 });
    await waitForDb(
      'UserPromptSubmit and Stop',
      () => sessions(home)[0]!.status === 'idle' && sessions(home)[0]!.prompt === 'hello from the person',
    );

    // Claude's Bash tool finds `klaude` (the shim on PATH) and its supervisor (KLAUDE_SOCKET).
    await submit(term, 'run: klaude status');
    await term.waitForText(/Tool output: project /, { timeoutMs: 45_000 });
    const shortInstance = inst!.id.slice(-8);
    await term.waitForText(new RegExp(`${shortInstance}\\s+${term.pid}\\s+cli`));
    const fgPid = processes(home)[0]!.pid;
    expect(term.text()).toMatch(new RegExp(`${root!.id.slice(-8)}\\s+${fgPid}`));
    await waitForDb('Stop after the tool turn', () => sessions(home)[0]!.last_text?.startsWith('Tool output:'));

    // The --model passed after -- reached every main request.
    const models = new Set(fx.mock.mainRequests().map((r) => r.body?.model));
    expect([...models]).toEqual([MODEL]);

    await submit(term, '/exit');
    const exit = await term.exited;
    expect(exit.exitCode).toBe(0);
    expect(existsSync(inst!.socket_path)).toBe(false);
    expect(instances(home)).toMatchObject([{ id: inst!.id, status: 'exited', exit_code: 0 }]);
    expect(processes(home)).toMatchObject([{ exit_code: 0, signal: null, is_current: 0 }]);
    const after = sessions(home)[0]!;
    expect(after.status).toBe('done');
    expect(links(home)).toMatchObject([
      { claude_session_id: hooked.claude_session_id, end_reason: 'prompt_input_exit' },
    ]);
    expect(eventKinds(home, root!.id)).toEqual(
      expect.arrayContaining([
        'hook.SessionStart',
        'hook.UserPromptSubmit',
        'hook.PostToolUse',
        'hook.Stop',
        'hook.SessionEnd',
      ]),
    );
    expect(term.cursorVisible()).toBe(true);
  });

  it('resumes the previous root with --resume-last, showing its conversation; /clear moves it to a new Claude id', async () => {
    await term?.dispose();
    const [root] = sessions(home);
    const claudeId = root!.native_session_id;
    term = startKlaude(home, ['--resume-last']);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    await term.waitForText('Reply to: hello from the person');
    const [, inst] = instances(home);
    expect(inst).toMatchObject({ pid: term.pid, status: 'running', root_session_id: root!.id });
    expect(sessions(home)).toHaveLength(1); // no new root: the old one is back
    await waitForDb('SessionStart(resume)', () =>
      links(home).find((l) => l.claude_session_id === claudeId && l.source === 'resume' && l.ended_at === null),
    );
    expect(processes(home)).toHaveLength(2);
    expect(processes(home)[1]).toMatchObject({ instance_id: inst!.id, exited_at: null });

    await submit(term, 'still there?');
    await term.waitForText('Reply to: still there?', { timeoutMs: 45_000 });
    const last = fx.mock.mainRequests().at(-1)!;
    expect(JSON.stringify(last.body.messages)).toContain('hello from the person');

    // /clear: the root's current Claude session moves to a new id; the old link ends; same tree.
    await submit(term, '/clear');
    const cleared = await waitForDb('SessionStart(clear)', () =>
      links(home).find((l) => l.source === 'clear' && l.ended_at === null),
    );
    expect(cleared.claude_session_id).not.toBe(claudeId);
    expect(links(home).find((l) => l.claude_session_id === claudeId)).toMatchObject({ end_reason: 'clear' });
    expect(sessions(home)).toMatchObject([
      { id: root!.id, native_session_id: cleared.claude_session_id, parent_id: null },
    ]);

    // Under load claude can leave `/clear` in its input after running it (seen once in CI with
    // the slash-command menu still open): empty the input before typing the next command.
    term.write('\x7f'.repeat(24));
    await submit(term, '/exit');
    expect((await term.exited).exitCode).toBe(0);
    expect(instances(home)[1]).toMatchObject({ status: 'exited', exit_code: 0 });
  });

  it('refuses claude flags that pick the session, in one line, before registering anything', async () => {
    const before = instances(home).length;
    for (const flag of ['--continue', '-r', '--session-id']) {
      const r = await home.k(['--', flag, 'x']);
      expect(r.code).toBe(2);
      expect(r.stdout).toBe('');
      const lines = r.stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        new RegExp(`^klaude: claude flag '${flag}' can't be passed through klaude \\[E_USAGE\\] — hint: `),
      );
    }
    expect(instances(home)).toHaveLength(before);
  });
});

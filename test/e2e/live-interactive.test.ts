// Interactive turns in the log, with the real claude: the foreground root's prompts, replies and
// tool calls (with results) show in `klaude logs <root>`; after `klaude checkout <agent>` a prompt
// typed in the foreground shows in `klaude logs <agent>` after the agent's headless run, once each.
import { readFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import type { PtySession } from '../support/pty-driver.js';
import {
  eventKinds,
  keepTranscript as keep,
  links,
  READY,
  runResponder,
  sessions,
  startKlaude,
  submit,
  waitBelow,
  waitForDb,
} from './supervisor-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

// (after /clear claude sends the command's caveat text with the next prompt: match on the marker)
const fx = useAgentHomes({
  responder: (r) =>
    runResponder(r) ??
    (r.prompt.includes('after-clear-3') ? { text: 'Reply after clear 3' } : { text: `Reply to: ${r.prompt}` }),
});
let home: AgentHome;
let term: PtySession;

beforeAll(() => {
  home = fx.home({ supervisor: true, config: false });
});
afterAll(async () => {
  await term?.dispose();
});

const klaude = (args: string[]) => home.k(args, { timeoutMs: 60_000 });

describe('interactive conversations in the log', () => {
  it('shows the root’s prompts, replies and a tool call with its result', async () => {
    term = startKlaude(home, [], { cols: 110, rows: 50 });
    await term.waitForText(READY, { timeoutMs: 60_000 });
    await submit(term, 'root-hello-31');
    await term.waitForText('Reply to: root-hello-31', { timeoutMs: 60_000 });
    await submit(term, 'run: echo tool-out-77');
    await term.waitForText('Tool output: tool-out-77', { timeoutMs: 60_000 });
    const root = sessions(home).find((s) => s.parent_id === null)!;

    const r = await klaude(['logs', root.id.slice(-8)]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    const order = [
      '> root-hello-31',
      'Reply to: root-hello-31',
      '> run: echo tool-out-77',
      '→ Bash: echo tool-out-77',
      '✓ 1 line',
      'Tool output: tool-out-77',
    ];
    let at = -1;
    for (const t of order) {
      const i = out.indexOf(t, at + 1);
      expect(i, `${t} after position ${at} in:\n${out}`).toBeGreaterThan(at);
      at = i;
    }
    const link = links(home).find((l) => l.klaude_session_id === root.id)!;
    const tl = readFileSync(
      `${home.home}/.claude/projects/${home.projectDir.replace(/[^a-zA-Z0-9]/g, '-')}/${link.claude_session_id}.jsonl`,
      'utf8',
    );
    expect(tl).toContain('"entrypoint":"cli"');
    keep(
      `${home.home}/.claude/projects/${home.projectDir.replace(/[^a-zA-Z0-9]/g, '-')}/${link.claude_session_id}.jsonl`,
      'interactive-root.jsonl',
    );
  });

  it('the root’s row says which tool runs while it runs (PreToolUse, in the background), and nothing after the turn', async () => {
    const root = () => sessions(home).find((s) => s.parent_id === null)!;
    await submit(term, 'run: sleep 5 && echo slept-44');
    await waitForDb('the tool as the root’s activity', () => root().activity === 'Bash: sleep 5 && echo slept-44');
    expect(root().status).toBe('running');
    await term.waitForText('Tool output: slept-44', { timeoutMs: 60_000 });
    await waitForDb('no activity after the turn', () => root().status === 'idle' && root().activity === null);

    // A tool that fails ends with PostToolUseFailure (not PostToolUse): the session thinks again.
    await submit(term, 'run: sleep 3; exit 3');
    await waitForDb('the failing tool as the activity', () => root().activity === 'Bash: sleep 3; exit 3');
    await term.waitForText(/Tool output: .*(exit code 3|Exit code 3)/i, { timeoutMs: 60_000 });
    await waitForDb('the failure recorded', () => eventKinds(home, root().id).includes('hook.PostToolUseFailure'));
    await waitForDb('no activity after the turn', () => root().status === 'idle' && root().activity === null);
  });

  it('after a checkout, a prompt typed in the foreground shows in the agent’s log after its headless run', async () => {
    const started = await klaude(['start', 'general', 'child-task-5', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const child = JSON.parse(started.stdout).sessions[0].id as string;
    const w = await klaude(['wait', child]);
    expect(w.code, w.stdout + w.stderr).toBe(0);

    await submit(term, `run: klaude checkout ${child.slice(-8)}`);
    // The switch clears the screen and prints one klaude line: the anchor for what the new claude shows.
    await waitBelow(term, `klaude: switched to ${child.slice(-8)}`, ['Reply to: child-task-5', READY]);
    await waitForDb('the child’s SessionStart(resume)', () =>
      links(home).find((l) => l.klaude_session_id === child && l.source === 'resume'),
    );
    await submit(term, 'after-checkout-9');
    await term.waitForText('Reply to: after-checkout-9', { timeoutMs: 60_000 });

    const r = await klaude(['logs', child.slice(-8)]);
    expect(r.code, r.stderr).toBe(0);
    const out = r.stdout;
    const headless = out.indexOf('Reply to: child-task-5');
    const typed = out.indexOf('> after-checkout-9');
    expect(headless, out).toBeGreaterThanOrEqual(0);
    expect(typed, out).toBeGreaterThan(headless);
    expect(out.indexOf('Reply to: after-checkout-9'), out).toBeGreaterThan(typed);
    // The headless turn is in the transcript too (entrypoint sdk-cli): shown once, from the log.
    expect(out.split('Reply to: child-task-5').length - 1, out).toBe(1);
    const link = links(home).find((l) => l.klaude_session_id === child)!;
    keep(
      `${home.home}/.claude/projects/${home.projectDir.replace(/[^a-zA-Z0-9]/g, '-')}/${link.claude_session_id}.jsonl`,
      'checked-out-agent.jsonl',
    );
  });

  it('after /clear (a new Claude id) the root’s log goes on in the same timeline', async () => {
    const root = sessions(home).find((s) => s.parent_id === null)!;
    // The agent was started from this test's shell (no KLAUDE_SESSION_ID): it is top level, so the
    // way back names the root.
    await submit(term, `run: klaude checkout ${root.id.slice(-8)}`);
    await waitBelow(term, `klaude: switched to ${root.id.slice(-8)}`, ['Reply to: root-hello-31', READY]);
    const before = links(home).filter((l) => l.klaude_session_id === root.id).length;
    // Followed live from here: the new transcript after /clear is found and read as it grows.
    const f = spawn(process.execPath, [KLAUDE_CLI, 'logs', '-f', root.id.slice(-8)], {
      cwd: home.projectDir,
      env: home.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let followed = '';
    f.stdout!.setEncoding('utf8').on('data', (d: string) => (followed += d));
    await vi.waitFor(() => expect(followed).toContain('Reply to: root-hello-31'), { timeout: 30_000, interval: 50 });
    await submit(term, '/clear');
    await waitForDb(
      'the new Claude id after /clear',
      () => links(home).filter((l) => l.klaude_session_id === root.id).length > before,
    );
    expect(
      links(home)
        .filter((l) => l.klaude_session_id === root.id)
        .at(-1)!.source,
    ).toBe('clear');
    await submit(term, 'after-clear-3');
    await term.waitForText('Reply after clear 3', { timeoutMs: 60_000 });
    const r = await klaude(['logs', root.id.slice(-8)]);
    expect(r.code, r.stderr).toBe(0);
    const first = r.stdout.indexOf('Reply to: root-hello-31');
    expect(first, r.stdout).toBeGreaterThanOrEqual(0);
    expect(r.stdout.indexOf('> after-clear-3'), r.stdout).toBeGreaterThan(first);
    expect(r.stdout.indexOf('Reply after clear 3'), r.stdout).toBeGreaterThan(first);
    expect(r.stdout, r.stdout).toContain('> /clear');
    await vi.waitFor(() => expect(followed).toContain('Reply after clear 3'), { timeout: 30_000, interval: 50 });
    expect(followed.indexOf('> after-clear-3')).toBeGreaterThan(followed.indexOf('Reply to: root-hello-31'));
    f.kill('SIGINT');
  });
});

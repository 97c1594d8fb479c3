// Issue 26's CLI findings, with the real claude against the Messages-API stand-in: a person's deny
// is not reported as a refusal without asking; a top-level agent's [UPDATE] and [NEEDS APPROVAL]
// notes reach `klaude watch`; `message -f` to a running agent prints the reply only, with the run's
// totals; `logs -n` counts readable entries; an attached start run by Claude returns on a
// permission request (exit 3); interrupt names the queued message it dropped; a prompt comes from
// stdin or a 2 MB file; agents' claudes get KLAUDE_PROJECT_PATH.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { shortId } from '../../src/core/ids.js';
import { getSession } from '../../src/db/repos/sessions.js';
import { waitForAgents } from '../../src/agent-ops/follow-agents.js';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import { spawnPty } from '../support/pty-driver.js';
import { until } from '../support/until.js';
import { useAgentHomes } from './agent-home.js';

const WORDS = Array.from({ length: 30 }, (_, i) => `w${i + 1}`).join(' ');
const CMD = 'python3 -c "print(6*7)"';

const fx = useAgentHomes({
  responder: (r) => {
    if (r.isToolResult) return { text: `Tool said: ${r.toolResults.map((t) => t.content).join(' ')}` };
    if (r.prompt.startsWith('run: '))
      return { bash: { command: r.prompt.slice(5), description: 'asked' }, text: 'Running it.' };
    // About 6 s: `klaude message` / `interrupt` (a node start each) must land inside it on a loaded machine.
    if (r.prompt.startsWith('slow')) return { text: WORDS, chunks: 30, delayMs: 200 };
    if (r.prompt.startsWith('update: ')) return { text: `[UPDATE] ${r.prompt.slice(8)}\nAll done.` };
    if (r.prompt.startsWith('big:')) return { text: `got ${r.prompt.length} characters` };
    return { text: `Reply to: ${r.prompt}` };
  },
});

function setup(config = '') {
  const home = fx.home({ prefix: 'klaude-first-cli-', config });
  const svc = home.services();
  const klaude = (args: string[], env: Record<string, string> = {}, input?: string) =>
    runKlaude(args, {
      env: { ...home.env, ...env },
      cwd: home.projectDir,
      timeoutMs: 90_000,
      ...(input !== undefined ? { input } : {}),
    });
  /** `klaude start <type> <prompt> -d --json`: the new id. */
  const startDetached = async (prompt: string): Promise<string> => {
    const r = await klaude(['start', 'general', prompt, '--json']);
    expect(r.stderr).toBe('');
    return JSON.parse(r.stdout).sessions[0].id as string;
  };
  const events = (id: string): AgentEvent[] => {
    const p = getSession(svc.db, id)?.logPath;
    if (!p) return [];
    try {
      return readFileSync(p, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as AgentEvent);
    } catch {
      return [];
    }
  };
  const finished = async (id: string) => {
    const r = await waitForAgents(svc, [getSession(svc.db, id)!], { timeoutMs: 90_000 });
    expect(r.timedOut).toBe(false);
    return getSession(svc.db, id)!;
  };
  /** `klaude deny` typed in a terminal (answers are taken from the person's terminal only). */
  const denyInTerminal = async (id: string, reason: string) => {
    const t = home.own(
      spawnPty(process.execPath, [KLAUDE_CLI, 'deny', shortId(id), '--reason', reason], {
        env: home.env,
        cwd: home.projectDir,
      }),
    );
    const exit = await t.exited;
    expect(exit.exitCode, t.text()).toBe(0);
  };
  const asking = (id: string) =>
    until(`${shortId(id)} asking for approval`, () => events(id).some((e) => e.type === 'approval_request'), 60_000);
  return { home, svc, klaude, startDetached, events, finished, denyInTerminal, asking };
}

describe('first contact, CLI (real claude)', () => {
  it("a person's deny ends the turn without a false 'refused without asking' error", async () => {
    const t = setup();
    const id = await t.startDetached(`run: ${CMD}`);
    await t.asking(id);
    await t.denyInTerminal(id, 'not today');
    const s = await t.finished(id);
    expect(s.status).toBe('done');
    const ev = t.events(id);
    expect(ev.find((e) => e.type === 'approval_answer')).toMatchObject({ behavior: 'deny' });
    expect(ev.filter((e) => e.type === 'error')).toEqual([]);
    expect((await t.klaude(['logs', shortId(id)])).stdout).not.toContain('refused without asking');
  }, 150_000);

  it('klaude watch shows the [UPDATE] of an agent started from a shell, and a running watch its [NEEDS APPROVAL]', async () => {
    const t = setup();
    const id = await t.startDetached('update: halfway there');
    await t.finished(id);
    const line = `[UPDATE] ${shortId(id)} (general): halfway there`;
    expect((await t.klaude(['watch', '--once'])).stdout).toContain(line);
    expect((await t.klaude(['watch', shortId(id), '--once'])).stdout).toContain(line);

    const live = t.home.spawn(['watch']);
    await until('the watch banner', () =>
      /watching .*from every agent of this project; Ctrl-C stops/.test(live.stderr()),
    );
    await live.waitForOutput(/halfway there/);
    const asker = await t.startDetached(`run: ${CMD}`);
    await live.waitForOutput(new RegExp(`\\[NEEDS APPROVAL\\] ${shortId(asker)} Bash: python3`), 60_000);
  }, 150_000);

  it('message -f to a running agent prints the reply only (not the turn it joined), and the run totals', async () => {
    const t = setup();
    const id = await t.startDetached('slow one');
    await until('the first turn streaming', () => t.events(id).some((e) => e.type === 'text_delta'), 60_000);
    const m = await t.klaude(['message', shortId(id), 'second question', '-f']);
    expect(m.stderr).toBe('');
    expect(m.code).toBe(0);
    const out = m.stdout.split('\n');
    expect(out.filter((l) => l.includes('Reply to: second question'))).toHaveLength(2); // the text, the summary's final text
    expect(m.stdout).not.toMatch(/\bw\d+\b/); // nothing of the turn it joined
    // The summary covers the run: both turns, the slow one's time included.
    const head = out.find((l) => l.startsWith('── agent'))!;
    expect(head).toMatch(/: done · [\d.]+s · 2 turns · /);
    const done = t.events(id).find((e) => e.type === 'done') as { durationMs?: number };
    expect(done.durationMs).toBeGreaterThanOrEqual(2000);
  }, 150_000);

  it('logs -n counts readable entries: a streamed message is one, never a fragment beside its text', async () => {
    const t = setup();
    const id = await t.startDetached('slow two');
    await t.finished(id);
    expect(t.events(id).filter((e) => e.type === 'text_delta').length).toBeGreaterThan(3);
    const two = (await t.klaude(['logs', shortId(id), '-n', '2'])).stdout;
    expect(two.split(WORDS)).toHaveLength(2); // the text, once
    expect(two.split('\n')[0]).toBe(WORDS);
    const one = (await t.klaude(['logs', shortId(id), '-n', '1'])).stdout;
    expect(one).not.toContain('w1');
    expect(one.trim().split('\n')).toHaveLength(1);
    // --raw stays the log as written.
    expect((await t.klaude(['logs', shortId(id), '-n', '2', '--raw'])).stdout.trim().split('\n')).toHaveLength(2);
  }, 150_000);

  it('an attached start run by Claude returns on a permission request: exit 3, the request named', async () => {
    const t = setup();
    const r = await t.klaude(['start', 'general', `run: ${CMD}`], { CLAUDECODE: '1' });
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(
      /agent \w{8} \(general\) needs approval 1: Bash: python3 -c "print\(6\*7\)" — `klaude approve/,
    );
    expect(r.stdout).toMatch(/waiting for an answer: \w{8}; tell the person: .*then `klaude wait \w{8}`/);
    expect(r.stdout).toContain('? needs approval 1: Bash');
  }, 150_000);

  it('interrupt says which queued message it dropped', async () => {
    const t = setup();
    const id = await t.startDetached('slow three');
    await until('the turn streaming', () => t.events(id).some((e) => e.type === 'text_delta'), 60_000);
    expect((await t.klaude(['message', shortId(id), 'after that, the docs'])).code).toBe(0);
    const r = await t.klaude(['interrupt', shortId(id)]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`${shortId(id)}: dropped 1 queued message (never sent;`);
    expect(r.stdout).toContain('  > after that, the docs');
  }, 150_000);

  it('a prompt from stdin (-) and a 2 MB one from --prompt-file; the agent sees KLAUDE_PROJECT_PATH', async () => {
    const t = setup('agents:\n  allowedTools: ["Bash(printenv:*)"]\n');
    const piped = await t.klaude(['start', 'general', '-', '--json'], {}, 'from stdin\n');
    expect(piped.code).toBe(0);
    const pid = JSON.parse(piped.stdout).sessions[0].id as string;
    expect((await t.finished(pid)).lastText).toBe('Reply to: from stdin');

    const file = join(t.home.root, 'big.txt');
    // Far above one argument's limit (128 KB), below the prompt claude 2.1.332 refuses itself as
    // "Prompt is too long" (3 MB of `x` is; 2 MB is not).
    const big = `big:${'x'.repeat(2 * 1024 * 1024)}`;
    writeFileSync(file, big);
    const r = await t.klaude(['start', 'general', '--prompt-file', file, '--json']);
    expect(r.stderr).toBe('');
    const bid = JSON.parse(r.stdout).sessions[0].id as string;
    expect((await t.finished(bid)).lastText).toBe(`got ${big.length} characters`);

    const env = await t.startDetached('run: printenv KLAUDE_PROJECT_PATH');
    await t.finished(env);
    expect(t.events(env).find((e) => e.type === 'tool_result')).toMatchObject({ output: t.home.projectDir });
  }, 180_000);
});

// What a new user (or Claude in its Bash tool) types, taken literally: prompts that start with `-`,
// ids as lists show them, `read` from the design notes, and `klaude` without a terminal. The built
// CLI, the real claude underneath, the Messages-API stand-in answering.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PtySession } from '../support/pty-driver.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { READY, sessions, startKlaude, submit } from './supervisor-helpers.js';

const fx = useAgentHomes({ responder: (r) => ({ text: `Reply to: ${r.prompt}` }) });
let home: AgentHome;

beforeAll(() => {
  home = fx.home({ prefix: 'klaude-cli-truth-', timeoutMs: 60_000 });
});

const klaude = (args: string[], opts: { input?: string } = {}) => home.k(args, opts);
const idFrom = (stdout: string): string => /started (\w{8})/.exec(stdout)![1]!;

function sessionCount(): number {
  const file = join(home.klaudeHome, 'sessions.db');
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('prompts as written', () => {
  it('a prompt starting with "- " is the prompt, flags after it still count', async () => {
    const r = await klaude(['start', 'general', '- item', '-d']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const w = await klaude(['wait', idFrom(r.stdout)]);
    expect(w.stdout).toContain('final text:\nReply to: - item\n');
    expect(fx.mock.mainRequests().some((q) => q.prompt === '- item')).toBe(true);
  });

  it('after `--`, "-h" is the prompt, not a request for help', async () => {
    const r = await klaude(['start', 'general', '--', '-h']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).not.toContain('Usage');
    expect(r.stdout).toContain('Reply to: -h\n');
    expect(fx.mock.mainRequests().some((q) => q.prompt === '-h')).toBe(true);
  });

  it('an unknown flag gets one line with a did-you-mean', async () => {
    const r = await klaude(['start', 'general', 'x', '--detatch']);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      "klaude: unknown flag '--detatch' for 'klaude start' [E_UNKNOWN_FLAG] — hint: did you mean `--detach`? (run `klaude start --help` for its flags)\n",
    );
    const t = await klaude(['start', 'genral', 'x']);
    expect(t.code).toBe(2);
    expect(t.stderr).toMatch(
      /^klaude: unknown agent type 'genral' \[E_USAGE\] — hint: did you mean `general`\? available: general/,
    );
  });
});

describe('ids as shown', () => {
  it('a 4-character prefix of the displayed id resolves in logs, read and message', async () => {
    const s = await klaude(['start', 'general', 'first words', '-d']);
    const shown = idFrom(s.stdout);
    await klaude(['wait', shown]);
    const listed = await klaude(['sessions']);
    expect(listed.stdout).toContain(shown);
    const prefix = shown.slice(0, 4);

    const logs = await klaude(['logs', prefix]);
    expect(logs.stderr).toBe('');
    expect(logs.stdout).toContain('Reply to: first words');

    const read = await klaude(['read', prefix.toLowerCase(), '-s']);
    expect(read.stderr).toBe('');
    expect(read.stdout).toMatch(new RegExp(`── general ${shown}: done`));

    const m = await klaude(['message', prefix, 'second words', '-f']);
    expect(m.stderr).toBe('');
    expect(m.code).toBe(0);
    expect(m.stdout).toContain('Reply to: second words');
  });
});

describe('klaude without a terminal', () => {
  it('exits 2 with one E_USAGE line and records nothing', async () => {
    const before = sessionCount();
    const r = await klaude([], { input: '' });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/^klaude: klaude needs a terminal .*\[E_USAGE\] — hint: /);
    expect(sessionCount()).toBe(before);
  });
});

describe('what klaude leaves behind', () => {
  let term: PtySession | undefined;
  afterAll(async () => {
    await term?.dispose();
  });

  it("a klaude where no prompt was sent leaves no listed session; one with a prompt ends with klaude's resume hint", async () => {
    const h = fx.home({ supervisor: true, prefix: 'klaude-leftover-' });
    term = startKlaude(h);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    await submit(term, '/exit');
    expect((await term.exited).exitCode).toBe(0);
    expect(term.rawOutput()).not.toContain('klaude --resume');
    expect(sessions(h)).toMatchObject([{ type: 'tui', prompt: null }]);
    const listed = await h.k(['sessions']);
    expect(listed.stdout).toMatch(/^no sessions in this project/);
    await term.dispose();

    term = startKlaude(h);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    await submit(term, 'leave a trace');
    await term.waitForText('Reply to: leave a trace', { timeoutMs: 45_000 });
    await submit(term, '/exit');
    expect((await term.exited).exitCode).toBe(0);
    const kept = sessions(h).find((x) => x.prompt === 'leave a trace')!;
    const out = term.rawOutput();
    const hint = `klaude: resume this session with klaude: klaude --resume ${kept.id.slice(-8)}`;
    expect(out).toContain(hint);
    // In place of claude's own "claude --resume <uuid>" lines (which would bypass klaude's hooks):
    // printed, then erased before klaude's line.
    const claudeLine = Math.max(...[...out.matchAll(/(?<!k)claude --resume [0-9a-f-]{36}/g)].map((m) => m.index));
    expect(claudeLine).toBeGreaterThan(0);
    expect(out.lastIndexOf(hint)).toBeGreaterThan(claudeLine);
    expect(term.text()).not.toMatch(/(?<!k)claude --resume|Resume this session/);
    expect(term.text()).toContain(hint);
    expect((await h.k(['sessions'])).stdout).toContain(kept.id.slice(-8));
  });
});

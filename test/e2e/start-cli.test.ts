// `klaude start` / `wait` / `message` / `interrupt` as Claude runs them from its Bash tool (no
// supervisor here): the built CLI, the real claude underneath, the stand-in holding replies back
// with gates so "live" and "at once" are observable without timing assumptions.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({
  responder: async (r) => {
    if (r.isToolResult) {
      const out = r.toolResults.map((t) => t.content).join(' ');
      if (out.includes('step-two')) await gate('live').open;
      return { text: 'All finished.' };
    }
    if (r.prompt === 'live task')
      return { text: 'Step one.', bash: { command: 'echo step-two', description: 'step two' } };
    const held = /^held (\w+)/.exec(r.prompt);
    if (held) {
      await gate(held[1]!).open;
      return { text: `Released ${held[1]}.` };
    }
    if (r.prompt.startsWith('hang')) return { hang: true };
    // Every attempt: claude 2.1.332 retries a 400 once, without one of its beta headers.
    if (r.prompt === 'this one fails')
      return { error: { status: 400, type: 'invalid_request_error', message: 'stand-in says no' } };
    return { text: `Reply to: ${r.prompt}` };
  },
});
let home: AgentHome;
const gates = new Map<string, { open: Promise<void>; release: () => void }>();

function gate(name: string): { open: Promise<void>; release: () => void } {
  let g = gates.get(name);
  if (!g) {
    let release!: () => void;
    const open = new Promise<void>((r) => (release = r));
    g = { open, release };
    gates.set(name, g);
  }
  return g;
}

beforeAll(() => {
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n' });
});

afterAll(async () => {
  for (const g of gates.values()) g.release();
});

const klaude = (args: string[], timeoutMs = 60_000) => home.k(args, { timeoutMs });

/** A klaude process we can watch while it runs (own process group, like a terminal's foreground job). */
function spawnKlaude(args: string[]): {
  child: ChildProcess;
  out: () => string;
  err: () => string;
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [KLAUDE_CLI, ...args], {
    cwd: home.projectDir,
    env: home.env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (err += d));
  const exit = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return { child, out: () => out, err: () => err, exit };
}

const idFrom = (stdout: string): string => /started (\w{8})/.exec(stdout)![1]!;

function status(short: string): string {
  const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    return (db.prepare('SELECT status FROM sessions WHERE id LIKE ?').get(`%${short}`) as { status: string }).status;
  } finally {
    db.close();
  }
}

describe('klaude start (attached)', () => {
  it('streams text and tool calls while the agent works, then prints the summary and exits 0', async () => {
    const run = spawnKlaude(['start', 'general', 'live task']);
    // The second model call is held back: what is on stdout by now was streamed live.
    await vi.waitFor(() => expect(run.out()).toContain('→ Bash: echo step-two'), { timeout: 45_000, interval: 50 });
    expect(run.out()).toMatch(
      /^started \w{8} \(general, claude\)\nfollowing it \(Ctrl-C detaches; the agent keeps running\)\nStep one\.\n→ Bash: echo step-two\n/,
    );
    expect(run.out()).not.toContain('── agent');
    gate('live').release();
    expect(await run.exit).toBe(0);
    const id = idFrom(run.out());
    expect(run.out()).toContain('  ✓ 1 line\nAll finished.\n');
    expect(run.out()).toMatch(
      new RegExp(
        `── agent ${id} \\(general\\): done · .* · 2 turns · \\$\\d+\\.\\d{4} ──\\nfiles edited: none\\nfiles created: none\\nfinal text:\\nAll finished\\.\\n$`,
      ),
    );
    expect(run.err()).toBe('');
  });

  it.each(['SIGINT', 'SIGHUP'] as const)(
    '%s detaches: the command says how to follow, the agent still finishes',
    async (sig) => {
      const run = spawnKlaude(['start', 'general', `held ${sig}`]);
      await fx.mock.waitForRequest((r) => r.prompt === `held ${sig}`, 45_000);
      await vi.waitFor(() => expect(run.out()).toContain('following it'), { timeout: 10_000, interval: 20 });
      process.kill(-run.child.pid!, sig); // the whole job, as a terminal (or Claude's Bash tool) does
      expect(await run.exit).toBe(0);
      const id = idFrom(run.out());
      expect(run.out()).toContain(
        `detached (${sig}); ${id} keeps running.\nfollow: klaude logs -f ${id} · wait: klaude wait ${id}\n`,
      );
      expect(status(id)).toBe('running');
      gate(sig).release();
      const w = await klaude(['wait', id]);
      expect(w.code).toBe(0);
      expect(w.stdout).toContain(`── agent ${id} (general): done`);
      expect(w.stdout).toContain(`final text:\nReleased ${sig}.`);
    },
  );

  it('exits 1 with the failure in the summary when the agent fails', async () => {
    const r = await klaude(['start', 'general', 'this one fails']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/── agent \w{8} \(general\): failed .*──\nerror: API Error: 400 stand-in says no/);
  });
});

describe('klaude start -d, wait, message, interrupt', () => {
  it('-d returns the id at once; wait blocks until done and prints the summary; message -f resumes and prints the reply', async () => {
    const d = await klaude(['start', 'general', 'held detached', '-d']);
    expect(d.code).toBe(0);
    const id = idFrom(d.stdout);
    expect(d.stdout).toBe(`started ${id} (general, claude)\nfollow: klaude logs -f ${id} · wait: klaude wait ${id}\n`);
    await fx.mock.waitForRequest((r) => r.prompt === 'held detached', 45_000);
    expect(status(id)).toBe('running'); // returned while the agent was still working

    const waiting = klaude(['wait', id]);
    gate('detached').release();
    const w = await waiting;
    expect(w.code).toBe(0);
    expect(w.stdout).toMatch(
      new RegExp(
        `^── agent ${id} \\(general\\): done · .*──\\nfiles edited: none\\nfiles created: none\\nfinal text:\\nReleased detached\\.\\n$`,
      ),
    );

    const m = await klaude(['message', id, 'what came first?', '-f']);
    expect(m.code).toBe(0);
    expect(m.stdout).toMatch(
      new RegExp(
        `^${id} had stopped \\(done\\): resumed its claude session [0-9a-f-]{36} with your message\\nReply to: what came first\\?\\n── agent ${id} \\(general\\): done`,
      ),
    );
    const history = JSON.stringify(fx.mock.mainRequests().find((r) => r.prompt === 'what came first?')!.body.messages);
    expect(history).toContain('held detached');

    // Nothing runs now: interrupt says so in one line.
    const i = await klaude(['interrupt', id]);
    expect(i.code).toBe(1);
    expect(i.stdout).toBe('');
    expect(i.stderr).toBe(
      `klaude: agent ${id} is not running (done) [E_AGENT_NOT_RUNNING] — hint: \`klaude message ${id} "…"\` resumes it\n`,
    );
  });

  it('wait times out with 124 and a hint; interrupt then ends the turn as interrupted', async () => {
    const d = await klaude(['start', 'general', 'hang on', '-d']);
    const id = idFrom(d.stdout);
    await fx.mock.waitForRequest((r) => r.prompt === 'hang on', 45_000);
    const w = await klaude(['wait', id, '--timeout', '1']);
    expect(w.code).toBe(124);
    expect(w.stdout).toBe(`still running: ${id} (running: thinking)\n`);
    expect(w.stderr).toBe(
      `klaude: timed out after 1s; 1 agent(s) still running [E_TIMEOUT] — hint: they keep working: run \`klaude wait ${id}\` again\n`,
    );
    const i = await klaude(['interrupt', id]);
    expect(i.stderr).toBe('');
    expect(i.code).toBe(0);
    expect(i.stdout).toBe(`${id} interrupted\n`);
    const again = await klaude(['wait', id]);
    expect(again.code).toBe(1);
    expect(again.stdout).toMatch(new RegExp(`^── agent ${id} \\(general\\): interrupted`));
  });

  it('starts count agents, and wait --any returns when the first is done', async () => {
    const d = await klaude(['start', 'general', 'held twin', '2', '-d', '--json']);
    expect(d.code).toBe(0);
    const { sessions } = JSON.parse(d.stdout) as { sessions: { id: string; shortId: string; via: string }[] };
    expect(sessions).toHaveLength(2);
    expect(sessions[0]!.via).toBe('directly');
    await vi.waitFor(() => expect(fx.mock.mainRequests().filter((r) => r.prompt === 'held twin')).toHaveLength(2), {
      timeout: 45_000,
      interval: 50,
    });
    const waiting = klaude(['wait', ...sessions.map((s) => s.shortId), '--any']);
    gate('twin').release();
    const w = await waiting;
    expect(w.code).toBe(0);
    expect(w.stdout).toContain('(general): done');
  });

  it('uses the agent definition: instructions in the system prompt, its model, output saved under .claude/<outputDir>', async () => {
    const dir = join(home.projectDir, '.claude', 'agents');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'reviewer.md'),
      '---\nname: reviewer\ndescription: reviews code\nmodel: claude-reviewer-model\noutputDir: reviews\n---\nYou review code carefully and say REVIEWED.\n',
    );
    const r = await klaude(['start', 'reviewer', 'look at it']);
    expect(r.code).toBe(0);
    const req = fx.mock.mainRequests().find((q) => q.prompt === 'look at it')!;
    expect(req.body.model).toBe('claude-reviewer-model');
    expect(JSON.stringify(req.body.system)).toContain('You review code carefully and say REVIEWED.');
    const saved = readdirSync(join(home.projectDir, '.claude', 'reviews'));
    expect(saved).toHaveLength(1);
    expect(readFileSync(join(home.projectDir, '.claude', 'reviews', saved[0]!), 'utf8')).toBe('Reply to: look at it\n');

    const unknown = await klaude(['start', 'nosuch', 'x']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(
      /^klaude: unknown agent type 'nosuch' \[E_USAGE\] — hint: available: general, reviewer;/,
    );
  });

  it('rejects bad input with one-line errors', async () => {
    const cases: [string[], RegExp, number][] = [
      [['start', 'general'], /^klaude: missing the prompt \[E_USAGE\].*--prompt-file/, 2],
      [['start', 'general', 'x', '0'], /^klaude: count must be a whole number from 1 to 20 \(got '0'\) \[E_USAGE\]/, 2],
      [['start', 'bad type!', 'x'], /^klaude: 'bad type!' is not an agent type name \[E_USAGE\]/, 2],
      [['start', 'general', 'x', '--runtime', 'nope'], /^klaude: unknown runtime 'nope' \[E_USAGE\]/, 2],
      [['start', 'general', 'x', '-c'], /^klaude: no klaude is running in this project \[E_NO_SUPERVISOR\]/, 1],
      [['message', 'ZZZZZZ', 'hi'], /^klaude: no session matches "ZZZZZZ" \[E_SESSION_NOT_FOUND\]/, 1],
      [['wait', 'ZZZZZZ'], /^klaude: no session matches "ZZZZZZ" \[E_SESSION_NOT_FOUND\]/, 1],
      [['interrupt', 'ZZZZZZ'], /^klaude: no session matches "ZZZZZZ" \[E_SESSION_NOT_FOUND\]/, 1],
    ];
    for (const [args, re, code] of cases) {
      const r = await klaude(args);
      expect(r.stderr, args.join(' ')).toMatch(re);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
      expect(r.code, args.join(' ')).toBe(code);
    }
  });
});

// `klaude start --runtime codex` and friends against the real codex (devDependency @openai/codex
// 0.169.0) talking to the Responses API stand-in: live text and tool calls, the thread id recorded
// as the native id, `message` resuming the same thread in a new process (queued while a turn
// runs), both ids resolving, interrupt, and a missing CLI.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { prepareCliHomes } from '../support/cli-homes.js';
import { runKlaude } from '../support/klaude-bin.js';
import { CODEX_TEST_MODEL, startMockOpenAi, type MockOpenAi } from '../support/mock-openai.js';
import { Gates, harness, idFrom } from '../support/runtime-harness.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let mock: MockOpenAi;
let home: TempHome;
const gates = new Gates();
const h = harness(() => home);

beforeAll(async () => {
  mock = await startMockOpenAi({
    responder: async (r) => {
      if (r.isToolResult) {
        if (r.toolOutputs.some((t) => t.output.includes('step-two'))) await gates.wait('live');
        return { text: 'All finished.' };
      }
      if (r.prompt === 'live task') return { text: 'Step one.', shell: { command: 'echo step-two' } };
      const held = /^held (\w+)/.exec(r.prompt);
      if (held) {
        await gates.wait(held[1]!);
        return { text: `Released ${held[1]}.` };
      }
      if (r.prompt.startsWith('hang')) return { hang: true };
      return { text: `Reply to: ${r.prompt}` };
    },
  });
  home = makeTempHome();
  prepareCliHomes(home, { openai: mock });
});

afterAll(async () => {
  gates.releaseAll();
  h.killRuntimes();
  await mock?.close();
  home?.cleanup();
});

describe('klaude with runtime codex', () => {
  let id = '';
  let thread = '';

  it('start streams text and tool calls live, ends with the final text, and records the thread id', async () => {
    const run = h.spawnKlaude(['start', 'general', 'live task', '--runtime', 'codex']);
    // The model call after the tool is held back: what is on stdout by now was streamed live.
    await vi.waitFor(() => expect(run.out()).toContain('→ shell: echo step-two'), { timeout: 45_000, interval: 50 });
    expect(run.out()).toMatch(
      /^started \w{8} \(general, codex\)\nfollowing it \(Ctrl-C detaches; the agent keeps running\)\nStep one\.\n→ shell: echo step-two\n/,
    );
    expect(run.out()).not.toContain('── agent');
    gates.release('live');
    expect(await run.exit).toBe(0);
    id = idFrom(run.out());
    expect(run.out()).toContain('  ✓ 1 line\nAll finished.\n');
    expect(run.out()).toMatch(
      new RegExp(
        `── agent ${id} \\(general\\): done.*──\\nfiles edited: none\\nfiles created: none\\nfinal text:\\nAll finished\\.\\n$`,
      ),
    );
    expect(run.err()).toBe('');

    const s = h.session(id);
    expect(s).toMatchObject({ runtime: 'codex', status: 'done' });
    expect(s.native_session_id).toMatch(/^[0-9a-f]{8}-[0-9a-f-]{27}$/);
    thread = s.native_session_id!;
    const log = h.events(id);
    expect(log.find((e) => e.type === 'init')).toMatchObject({ runtime: 'codex', nativeSessionId: thread });
    expect(log.filter((e) => e.type === 'done')).toHaveLength(1);
    // klaude's preamble reached codex as developer instructions.
    expect(mock.mainRequests()[0]!.instructions).toContain(`You are a klaude sub-agent (type "general", id ${id})`);
  });

  it('sessions -v shows both ids; either id (or a prefix of the thread id) resolves', async () => {
    const v = await h.klaude(['sessions', '-v']);
    expect(v.code).toBe(0);
    expect(v.stdout).toMatch(new RegExp(`${id}\\s+done\\s+general\\s+codex`));
    expect(v.stdout).toContain(`codex id ${thread}`);
    for (const ref of [id, thread, thread.slice(0, 13)]) {
      const l = await h.klaude(['logs', ref]);
      expect(l.code, `logs ${ref}: ${l.stderr}`).toBe(0);
      expect(l.stdout).toContain('→ shell: echo step-two');
    }
  });

  it('message resumes the same thread in a new codex process, and says so', async () => {
    const m = await h.klaude(['message', thread.slice(0, 13), 'and then?', '-f']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toMatch(
      new RegExp(
        `^${id} had stopped \\(done\\): resumed its codex session ${thread} in a new codex process \\(it takes no input while it runs\\) with your message\\nReply to: and then\\?\\n── agent ${id} \\(general\\): done`,
      ),
    );
    // The resumed run saw the earlier turn: same thread.
    const req = mock.mainRequests().find((r) => r.prompt === 'and then?')!;
    expect(JSON.stringify(req.body.input)).toContain('live task');
    expect(req.body.prompt_cache_key).toBe(thread);
    expect(h.session(id).native_session_id).toBe(thread);
  });

  it('a message sent while a turn runs is queued, then sent by resuming the thread in a new process', async () => {
    const d = await h.klaude(['start', 'general', 'held first', '--runtime', 'codex', '-d']);
    expect(d.code).toBe(0);
    const q = idFrom(d.stdout);
    await mock.waitForRequest((r) => r.prompt === 'held first', 45_000);
    const m = await h.klaude(['message', q, 'held second']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toMatch(
      new RegExp(
        `^queued for ${q} \\(running\\): codex takes no input while it runs, so when the current turn ends klaude resumes its codex session [0-9a-f-]{36} in a new process with your message\\n`,
      ),
    );
    gates.release('first');
    await mock.waitForRequest((r) => r.prompt === 'held second', 45_000);
    gates.release('second');
    const w = await h.klaude(['wait', q]);
    expect(w.code).toBe(0);
    expect(w.stdout).toContain('final text:\nReleased second.');
    const log = h.events(q);
    const texts = log.filter((e) => e.type === 'text').map((e) => e.text);
    expect(texts).toEqual(['Released first.', 'Released second.']);
    expect(log.filter((e) => e.type === 'done')).toHaveLength(1);
    expect(log.filter((e) => e.type === 'status' && e.reason === 'resumed')).toHaveLength(1);
    expect(log.filter((e) => e.type === 'user').map((e) => [e.text, e.source])).toEqual([
      ['held first', 'start'],
      ['held second', 'message'],
    ]);
    const inits = log.filter((e) => e.type === 'init');
    expect(new Set(inits.map((e) => e.nativeSessionId)).size).toBe(1);
  });

  it('interrupt stops a running turn (SIGINT to codex): the agent ends interrupted', async () => {
    const d = await h.klaude(['start', 'general', 'hang on', '--runtime', 'codex', '-d']);
    const x = idFrom(d.stdout);
    await mock.waitForRequest((r) => r.prompt === 'hang on', 45_000);
    const i = await h.klaude(['interrupt', x]);
    expect(i.stderr).toBe('');
    expect(i.stdout).toBe(`${x} interrupted\n`);
    expect(h.session(x).status).toBe('interrupted');
  });

  it('a gpt-* model picks codex without --runtime', async () => {
    const r = await h.klaude(['start', 'general', 'which runtime?', '--model', CODEX_TEST_MODEL]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^started \w{8} \(general, codex\)\n/);
    expect(r.stdout).toContain('final text:\nReply to: which runtime?');
    expect(mock.mainRequests().find((x) => x.prompt === 'which runtime?')!.body.model).toBe(CODEX_TEST_MODEL);
  });

  it('a missing codex gives a one-line error with the install hint', async () => {
    writeFileSync(join(home.klaudeHome, 'config.yaml'), 'codex:\n  binary: /nonexistent/codex\n');
    try {
      const r = await h.klaude(['start', 'general', 'anything', '--runtime', 'codex']);
      expect(r.code).toBe(1);
      expect(r.stdout).toBe('');
      expect(r.stderr).toBe(
        "klaude: OpenAI Codex CLI '/nonexistent/codex' not found (runtime codex) [E_RUNTIME_MISSING] — hint: fix codex.binary in config.yaml, or install it: npm i -g @openai/codex\n",
      );
    } finally {
      writeFileSync(join(home.klaudeHome, 'config.yaml'), '');
    }
    // Not on PATH either.
    const stripped = await runKlaude(['start', 'general', 'anything', '--runtime', 'codex'], {
      env: { ...home.env, PATH: '/usr/bin:/bin' },
      cwd: home.projectDir,
    });
    expect(stripped.code).toBe(1);
    expect(stripped.stderr).toBe(
      "klaude: OpenAI Codex CLI 'codex' not found on PATH (runtime codex) [E_RUNTIME_MISSING] — hint: install it (npm i -g @openai/codex) or set codex.binary in config.yaml\n",
    );
  });
});

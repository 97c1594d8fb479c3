// `klaude start --runtime opencode` and friends against the real opencode (devDependency
// opencode-ai 1.18.33), its built-in anthropic provider pointed at the Messages API stand-in:
// live text and tool calls, completion detected by exit (1.18.33 prints no final event), the
// `ses_…` id from the first event recorded, `message` continuing it with `-s` in a new process,
// both ids resolving, interrupt, and a missing CLI.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { OPENCODE_TEST_MODEL, prepareCliHomes } from '../support/cli-homes.js';
import { runKlaude } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { Gates, harness, idFrom } from '../support/runtime-harness.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let mock: MockAnthropic;
let home: TempHome;
const gates = new Gates();
const h = harness(() => home);

beforeAll(async () => {
  mock = await startMockAnthropic({
    responder: async (r) => {
      if (r.isToolResult) {
        if (r.toolResults.some((t) => t.content.includes('step-two'))) await gates.wait('live');
        return { text: 'All finished.' };
      }
      if (r.prompt.endsWith('live task'))
        return { text: 'Step one.', bash: { command: 'echo step-two', description: 'step two' } };
      if (r.prompt.endsWith('hang on')) return { hang: true };
      return { text: `Reply to: ${r.prompt.split('\n').at(-1)}` };
    },
  });
  home = makeTempHome({ baseUrl: mock.url });
  prepareCliHomes(home, { anthropic: mock });
});

afterAll(async () => {
  gates.releaseAll();
  h.killRuntimes();
  await mock?.close();
  home?.cleanup();
});

describe('klaude with runtime opencode', () => {
  let id = '';
  let native = '';

  it('start streams text and tool calls live; done (with the final text) when opencode exits', async () => {
    const run = h.spawnKlaude(['start', 'general', 'live task', '--runtime', 'opencode']);
    await vi.waitFor(() => expect(run.out()).toContain('→ bash: echo step-two'), { timeout: 60_000, interval: 50 });
    expect(run.out()).toMatch(
      /^started \w{8} \(general, opencode\)\nfollowing it \(Ctrl-C detaches; the agent keeps running\)\nStep one\.\n→ bash: echo step-two\n/,
    );
    expect(run.out()).not.toContain('── agent');
    id = idFrom(run.out());
    gates.release('live');
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain('  ✓ 1 line\nAll finished.\n');
    expect(run.out()).toMatch(
      new RegExp(
        `── agent ${id} \\(general\\): done.*\\$0\\.\\d{4} ──\\nfiles edited: none\\nfiles created: none\\nfinal text:\\nAll finished\\.\\n$`,
      ),
    );
    expect(run.err()).toBe('');
    const s = h.session(id);
    expect(s).toMatchObject({ runtime: 'opencode', status: 'done' });
    expect(s.native_session_id).toMatch(/^ses_\w+$/);
    native = s.native_session_id!;
    expect(h.events(id).find((e) => e.type === 'init')).toMatchObject({ runtime: 'opencode', nativeSessionId: native });
    // The prompt reached opencode exactly (on stdin), after klaude's instructions.
    const first = mock.mainRequests().find((r) => r.prompt.endsWith('live task'))!;
    expect(first.prompt).toMatch(
      new RegExp(
        `^<instructions>\\nYou are a klaude sub-agent \\(type "general", id ${id}\\)[\\s\\S]*</instructions>\\n\\nlive task$`,
      ),
    );
    expect(first.body.model).toBe(OPENCODE_TEST_MODEL.split('/')[1]);
  });

  it('sessions -v shows both ids; either id resolves', async () => {
    const v = await h.klaude(['sessions', '-v']);
    expect(v.stdout).toMatch(new RegExp(`${id}\\s+done\\s+general\\s+opencode`));
    expect(v.stdout).toContain(`opencode id ${native}`);
    for (const ref of [id, native, native.slice(0, 12)]) {
      const l = await h.klaude(['logs', ref]);
      expect(l.code, `logs ${ref}: ${l.stderr}`).toBe(0);
      expect(l.stdout).toContain('→ bash: echo step-two');
    }
  });

  it('message continues the same session (-s) in a new opencode process, and says so', async () => {
    const m = await h.klaude(['message', id, 'and then?', '-f']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toMatch(
      new RegExp(
        `^${id} had stopped \\(done\\): resumed its opencode session ${native} in a new opencode process \\(it takes no input while it runs\\) with your message\\nReply to: and then\\?\\n── agent ${id} \\(general\\): done`,
      ),
    );
    const req = mock.mainRequests().find((r) => r.prompt === 'and then?')!;
    expect(JSON.stringify(req.body.messages)).toContain('live task');
    expect(h.session(id).native_session_id).toBe(native);
  });

  it('interrupt stops a running turn (SIGINT to opencode): the agent ends interrupted', async () => {
    const d = await h.klaude(['start', 'general', 'hang on', '--runtime', 'opencode', '-d']);
    const x = idFrom(d.stdout);
    await mock.waitForRequest((r) => r.prompt.endsWith('hang on'), 60_000);
    const i = await h.klaude(['interrupt', x]);
    expect(i.stderr).toBe('');
    expect(i.stdout).toBe(`${x} interrupted\n`);
    expect(h.session(x).status).toBe('interrupted');
  });

  it('without opencode on PATH: one line with the install hint', async () => {
    const r = await runKlaude(['start', 'general', 'x', '--runtime', 'opencode'], {
      env: { ...home.env, PATH: '/usr/bin:/bin' },
      cwd: home.projectDir,
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      "klaude: opencode 'opencode' not found on PATH (runtime opencode) [E_RUNTIME_MISSING] — hint: install it (npm i -g opencode-ai) or set opencode.binary in config.yaml\n",
    );
  });
});

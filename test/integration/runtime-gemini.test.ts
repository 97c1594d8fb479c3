// `klaude start --runtime gemini` and friends against the real Gemini CLI (devDependency
// @google/gemini-cli 0.61.0) talking to the Gemini API stand-in: live text and tool calls, the
// session id klaude picked up front recorded before the first event, `message` resuming it with
// `--resume` in a new process, both ids resolving, interrupt, and a missing CLI.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { prepareCliHomes } from '../support/cli-homes.js';
import { runKlaude } from '../support/klaude-bin.js';
import { GEMINI_TEST_MODEL, startMockGemini, type MockGemini } from '../support/mock-gemini.js';
import { Gates, harness, idFrom } from '../support/runtime-harness.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let mock: MockGemini;
let home: TempHome;
const gates = new Gates();
const h = harness(() => home);
// Headless gemini registers its shell tool only with --approval-mode yolo (see the fixtures); klaude
// drives no gemini sandbox, so bypass is allowed explicitly (agents.bypassWithoutSandbox).
const CONFIG = `agents:\n  permissionMode: bypassPermissions\n  bypassWithoutSandbox: true\n  model: ${GEMINI_TEST_MODEL}\n`;

beforeAll(async () => {
  mock = await startMockGemini({
    responder: async (r) => {
      if (r.isToolResult) {
        if (JSON.stringify(r.toolResults).includes('step-two')) await gates.wait('live');
        return { text: 'All finished.' };
      }
      if (r.prompt.endsWith('live task')) return { text: 'Step one.', shell: { command: 'echo step-two' } };
      if (r.prompt.endsWith('hang on')) return { hang: true };
      return { text: `Reply to: ${r.prompt.split('\n').at(-1)}` };
    },
  });
  home = makeTempHome();
  prepareCliHomes(home, { gemini: mock });
  writeFileSync(join(home.klaudeHome, 'config.yaml'), CONFIG);
});

afterAll(async () => {
  gates.releaseAll();
  h.killRuntimes();
  await mock?.close();
  home?.cleanup();
});

describe('klaude with runtime gemini', () => {
  let id = '';
  let native = '';

  it("start streams text and tool calls live, ends with the final text; the session id is klaude's choice", async () => {
    const run = h.spawnKlaude(['start', 'general', 'live task', '--runtime', 'gemini']);
    await vi.waitFor(() => expect(run.out()).toContain('→ run_shell_command: echo step-two'), {
      timeout: 60_000,
      interval: 50,
    });
    expect(run.out()).toMatch(
      /^started \w{8} \(general, gemini\)\nfollowing it \(Ctrl-C detaches; the agent keeps running\)\nStep one\.\n→ run_shell_command: echo step-two\n/,
    );
    expect(run.out()).not.toContain('── agent');
    id = idFrom(run.out());
    // Known before gemini said anything about it (picked up front, --session-id).
    native = h.session(id).native_session_id!;
    expect(native).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    gates.release('live');
    expect(await run.exit).toBe(0);
    expect(run.out()).toContain('  ✓ 1 line\nAll finished.\n');
    expect(run.out()).toMatch(
      new RegExp(
        `── agent ${id} \\(general\\): done.*──\\nfiles edited: none\\nfiles created: none\\nfinal text:\\nAll finished\\.\\n$`,
      ),
    );
    expect(run.err()).toBe('');
    expect(h.session(id)).toMatchObject({ runtime: 'gemini', status: 'done', native_session_id: native });
    const log = h.events(id);
    expect(log.find((e) => e.type === 'init')).toMatchObject({
      runtime: 'gemini',
      nativeSessionId: native,
      model: GEMINI_TEST_MODEL,
    });
    // klaude's preamble went ahead of the first message (gemini has no system-prompt flag).
    expect(mock.mainRequests()[0]!.prompt).toMatch(
      new RegExp(
        `<instructions>\\nYou are a klaude sub-agent \\(type "general", id ${id}\\)[\\s\\S]*</instructions>\\n\\nlive task$`,
      ),
    );
  });

  it('sessions -v shows both ids; either id resolves', async () => {
    const v = await h.klaude(['sessions', '-v']);
    expect(v.stdout).toMatch(new RegExp(`${id}\\s+done\\s+general\\s+gemini`));
    expect(v.stdout).toContain(`gemini id ${native}`);
    for (const ref of [id, native, native.slice(0, 8)]) {
      const l = await h.klaude(['logs', ref]);
      expect(l.code, `logs ${ref}: ${l.stderr}`).toBe(0);
      expect(l.stdout).toContain('→ run_shell_command: echo step-two');
    }
  });

  it('message resumes the same session (--resume) in a new gemini process, and says so', async () => {
    const m = await h.klaude(['message', native, 'and then?', '-f']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout).toMatch(
      new RegExp(
        `^${id} had stopped \\(done\\): resumed its gemini session ${native} in a new gemini process \\(it takes no input while it runs\\) with your message\\nReply to: and then\\?\\n── agent ${id} \\(general\\): done`,
      ),
    );
    const req = mock.mainRequests().find((r) => r.prompt.endsWith('and then?'))!;
    // The resumed conversation holds the first turn, and the instructions are not sent again.
    expect(JSON.stringify(req.body.contents)).toContain('live task');
    expect(req.prompt).toBe('and then?');
    const inits = h.events(id).filter((e) => e.type === 'init');
    expect(inits.map((e) => e.nativeSessionId)).toEqual([native, native]);
  });

  it('interrupt stops a running turn (SIGINT reaches gemini): the agent ends interrupted', async () => {
    const d = await h.klaude(['start', 'general', 'hang on', '--runtime', 'gemini', '-d']);
    const x = idFrom(d.stdout);
    await mock.waitForRequest((r) => r.prompt.endsWith('hang on'), 60_000);
    const i = await h.klaude(['interrupt', x]);
    expect(i.stderr).toBe('');
    expect(i.stdout).toBe(`${x} interrupted\n`);
    expect(h.session(x).status).toBe('interrupted');
  });

  it('a gemini-* model picks gemini; without gemini on PATH: one line with the install hint', async () => {
    writeFileSync(join(home.klaudeHome, 'config.yaml'), '');
    try {
      const r = await runKlaude(['start', 'general', 'x', '--model', GEMINI_TEST_MODEL], {
        env: { ...home.env, PATH: '/usr/bin:/bin' },
        cwd: home.projectDir,
      });
      expect(r.code).toBe(1);
      expect(r.stderr).toBe(
        "klaude: Gemini CLI 'gemini' not found on PATH (runtime gemini) [E_RUNTIME_MISSING] — hint: install it (npm i -g @google/gemini-cli) or set gemini.binary in config.yaml\n",
      );
    } finally {
      writeFileSync(join(home.klaudeHome, 'config.yaml'), CONFIG);
    }
  });
});

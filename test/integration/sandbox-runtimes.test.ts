// Agents of CLIs whose sandbox cannot hold klaude's boundary, with the real gemini (0.61.0) and
// opencode (1.18.33) against their stand-ins: they run, unsandboxed, and `sessions` says so with
// the reason (`-v`, `--json`, the `· unsandboxed` mark); `--sandbox` refuses them before anything
// starts; `klaude doctor` names each installed CLI.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareCliHomes } from '../support/cli-homes.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { GEMINI_TEST_MODEL, startMockGemini, type MockGemini } from '../support/mock-gemini.js';
import { harness, idFrom } from '../support/runtime-harness.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const GEMINI_WHY =
  "gemini's tool sandbox cannot hide klaude's home: it hides only .geminiignore'd paths of the workspace";

let gemini: MockGemini;
let anthropic: MockAnthropic;
let home: TempHome;
const h = harness(() => home);

beforeAll(async () => {
  gemini = await startMockGemini({ responder: (r) => ({ text: `Gemini: ${r.prompt.split('\n').at(-1)}` }) });
  anthropic = await startMockAnthropic({ responder: (r) => ({ text: `Opencode: ${r.prompt.split('\n').at(-1)}` }) });
  home = makeTempHome({ baseUrl: anthropic.url });
  prepareCliHomes(home, { gemini, anthropic });
  home.env.COLUMNS = '400'; // sessions -v cuts its detail lines to the width
});

afterAll(async () => {
  h.killRuntimes();
  await gemini?.close();
  await anthropic?.close();
  home?.cleanup();
});

/** A row of `sessions --json`, wherever in the tree. */
async function row(id: string): Promise<Record<string, unknown>> {
  const all = JSON.parse((await h.klaude(['sessions', '--json'])).stdout) as Record<string, unknown>[];
  return all.find((s) => s.shortId === id)!;
}

describe('gemini and opencode agents', () => {
  it.each([
    ['gemini', ['--model', GEMINI_TEST_MODEL], GEMINI_WHY, 'Gemini: hi there'],
    ['opencode', [], 'opencode has no sandbox', 'Opencode: hi there'],
  ])('%s: runs unsandboxed, and sessions says why', async (runtime, extra, why, reply) => {
    const r = await h.klaude(['start', 'general', 'hi there', '--runtime', runtime, ...extra]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(reply);
    const id = idFrom(r.stdout);
    expect((await row(id)).sandbox).toBe(`unsandboxed: ${why}`);
    const v = await h.klaude(['sessions', '-v']);
    expect(v.stdout).toContain(`unsandboxed: ${why}`);
    // Ended: the status is plain (the tag shows while an agent can act); -v keeps why.
    expect(v.stdout).toMatch(new RegExp(`${id}\\s+done\\s`));
  });

  it('--sandbox refuses them before anything starts, with the reason and the way out', async () => {
    const r = await h.klaude(['start', 'general', 'x', '--runtime', 'opencode', '--sandbox']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      'klaude: opencode agents cannot be sandboxed: opencode has no sandbox (--sandbox) [E_SANDBOX_UNAVAILABLE] — hint: start it with --no-sandbox, or run it with --runtime claude (or codex)\n',
    );
  });

  it("doctor's sandbox line names each installed CLI", async () => {
    const d = await h.klaude(['doctor', '--json']);
    const checks = JSON.parse(d.stdout) as { check: string; detail: string }[];
    const line = checks.find((c) => c.check === 'sandbox')!.detail;
    expect(line).toContain("codex agents' commands run sandboxed");
    expect(line).toContain(`gemini agents run unsandboxed (${GEMINI_WHY})`);
    expect(line).toContain('opencode agents run unsandboxed (opencode has no sandbox)');
  });
});

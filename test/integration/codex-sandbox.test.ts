// A codex agent on a machine where codex's own sandbox cannot start: klaude run inside a user
// namespace that may create none below it (`user.max_user_namespaces` = 0 there, as a container or
// a restricting AppArmor leaves it), so the real bubblewrap that codex 0.169.0 runs fails as it
// would there. The run fails at once — before codex ever reaches the model, whose stand-in would
// hold every request for ever — with bubblewrap's own error in `start`, `sessions` and `logs`; and
// the way out the hint gives (no sandbox at all: `--no-sandbox --bypass-without-sandbox` with
// permissionMode bypassPermissions) runs the command.
import { spawnSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { prepareCliHomes } from '../support/cli-homes.js';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { startMockOpenAi, type MockOpenAi } from '../support/mock-openai.js';
import { runProcess } from '../support/run-process.js';
import { harness, idFrom } from '../support/runtime-harness.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

/** `sh -c` run as root of a new user namespace that allows no user namespace below it. */
const NO_USERNS = 'echo 0 > /proc/sys/user/max_user_namespaces && exec "$@"';
const canConfine =
  process.platform === 'linux' && spawnSync('unshare', ['-U', '-r', 'sh', '-c', NO_USERNS, 'sh', 'true']).status === 0;

let mock: MockOpenAi;
let home: TempHome;
const h = harness(() => home);

/** `klaude …` where no user namespace can be made: the runtime it starts (and codex) stay there. */
const confined = (args: string[]) =>
  runProcess('unshare', ['-U', '-r', 'sh', '-c', NO_USERNS, 'sh', process.execPath, KLAUDE_CLI, ...args], {
    env: home.env,
    cwd: home.projectDir,
    timeoutMs: 60_000,
  });

beforeAll(async () => {
  mock = await startMockOpenAi({
    responder: (r) => {
      if (r.isToolResult) return { text: `Tool said: ${r.toolOutputs.map((t) => t.output).join('')}` };
      if (r.prompt.startsWith('run ')) return { text: 'Running.', shell: { command: r.prompt.slice(4) } };
      return { hang: true };
    },
  });
  home = makeTempHome();
  prepareCliHomes(home, { openai: mock });
});

afterAll(async () => {
  h.killRuntimes();
  await mock?.close();
  home?.cleanup();
});

describe.skipIf(!canConfine)('codex whose sandbox cannot start', () => {
  it('fails the run before codex starts, with bubblewrap own error in start, sessions and logs', async () => {
    const r = await confined(['start', 'general', 'hold this for ever', '--runtime', 'codex']);
    expect(r.code).toBe(1);
    const id = idFrom(r.stdout);
    const error =
      "codex's sandbox cannot start here: bwrap: Creating new namespace failed: nesting depth or /proc/sys/user/max_*_namespaces exceeded (ENOSPC)";
    expect(r.stdout).toContain(`── agent ${id} (general): failed`);
    expect(r.stdout).toContain(`error: ${error} — hint: bubblewrap cannot create the namespaces it needs here`);
    expect(r.stdout).toContain('permissionMode: bypassPermissions');
    // Nothing reached the model: the stand-in would have held the request, and the run with it.
    expect(mock.mainRequests().filter((q) => q.prompt === 'hold this for ever')).toEqual([]);

    expect(h.session(id)).toMatchObject({ status: 'failed', native_session_id: null });
    const j = await h.klaude(['sessions', '--json']);
    const row = JSON.parse(j.stdout).find((s: { shortId: string }) => s.shortId === id);
    expect(row.error.startsWith(`${error} — hint:`)).toBe(true);
    const s = await h.klaude(['sessions']);
    expect(s.stdout).toMatch(
      new RegExp(`${id}\\s+failed\\s+general\\s+codex\\s+\\S+\\s+codex's sandbox cannot start here`),
    );
    const l = await h.klaude(['logs', id]);
    expect(l.stdout).toContain('> hold this for ever');
    expect(l.stdout).toContain(`failed · $0.0000: ${error}`);
    expect(h.events(id).find((e) => e.type === 'done')).toMatchObject({
      status: 'failed',
      error: expect.stringContaining(error),
    });
  });

  it('runs the command with the hint followed (--no-sandbox --bypass-without-sandbox, bypassPermissions: no sandbox)', async () => {
    writeFileSync(join(home.klaudeHome, 'config.yaml'), 'agents:\n  permissionMode: bypassPermissions\n');
    try {
      const r = await confined([
        'start',
        'general',
        'run echo ran-unsandboxed',
        '--runtime',
        'codex',
        '--no-sandbox',
        '--bypass-without-sandbox',
      ]);
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toContain('→ shell: echo ran-unsandboxed');
      expect(r.stdout).toContain('final text:\nTool said:');
      expect(r.stdout).toContain('ran-unsandboxed');
    } finally {
      writeFileSync(join(home.klaudeHome, 'config.yaml'), '');
    }
  });
});

// Claude Code's "auto mode" (the interactive default since 2.1.332, docs/claude-versions.md) under
// klaude, against the stand-in, which cannot give auto mode's server-side safety check:
// - the foreground claude keeps the person's mode; a plain command in the working folder runs
//   unasked, and a call auto mode cannot check stops on its own dialog, which makes the session
//   `waiting` as any permission dialog does;
// - the dashboard marks a PTY session stopped on that dialog "needs you";
// - a headless agent keeps `agents.permissionMode` (default: ask): its request reaches
//   `klaude approve`, and "always" writes the rule into .claude/settings.local.json.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { claudeAtLeast } from '../support/claude-bin.js';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import { spawnPty } from '../support/pty-driver.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';
import { eventKinds, runResponder, sessions, startKlaude, submit, waitForDb } from './supervisor-helpers.js';
import { sessionStatus } from './talk-helpers.js';

/** Auto mode's dialog when its safety check is not there (claude 2.1.332). */
const CANT_CHECK = /Auto mode can.t check actions in this session/;

const fx = useAgentHomes({ responder: runResponder });

/** A person who left claude's permission mode alone: auto mode from 2.1.332 on. */
const autoHome = (): AgentHome => fx.home({ supervisor: true, allowBash: false, permissionMode: null });

describe.runIf(claudeAtLeast('2.1.332'))('auto mode (claude ≥ 2.1.332)', () => {
  it('the foreground keeps auto mode: a plain command runs unasked; one it cannot check makes the session waiting', async () => {
    const home = autoHome();
    const term = home.own(startKlaude(home, [], { cols: 110, rows: 40 }));
    // Auto mode's footer replaces "? for shortcuts".
    await term.waitForText(/auto mode on/, { timeoutMs: 60_000 });
    const root = () => sessions(home).find((s) => s.parent_id === null)!;

    await submit(term, 'run: touch auto-ran-12.txt');
    await term.waitForText('Tool output:', { timeoutMs: 60_000 });
    expect(existsSync(join(home.projectDir, 'auto-ran-12.txt'))).toBe(true);
    await waitForDb('idle after the allowed call', () => root().status === 'idle');

    await submit(term, 'run: klaude sessions && klaude status');
    await term.waitForText(CANT_CHECK, { timeoutMs: 60_000 });
    // No PermissionRequest runs for this dialog: claude's Notification (agent_needs_input) says it.
    await waitForDb('waiting while auto mode asks', () => root().status === 'waiting', 30_000);
    expect(eventKinds(home, root().id)).toContain('hook.Notification');
    expect(root().activity).toBe('Bash: klaude sessions && klaude status');
    // Enter stays in auto mode; claude then asks for this call (default "No"), still waiting.
    term.press('enter');
    await term.waitForText(/so this one needs your approval[\s\S]*Do you want to proceed\?/, { timeoutMs: 30_000 });
    expect(root().status).toBe('waiting');
    // Claude refuses keys for a moment after a dialog appears (against stray presses): move to
    // "Yes" and confirm, pressing again until the dialog takes the key, as a person would.
    const asking = /Do you want to proceed\?/;
    // (for as long as a loaded machine takes, not a count of presses: under the whole suite's load
    // 20 presses a second apart once ran out with the dialog still open)
    const pressUntil = Date.now() + 45_000;
    while (Date.now() < pressUntil && asking.test(term.text())) {
      const onYes = /❯ Yes/.test(term.text());
      term.press(onYes ? 'enter' : 'down');
      await term
        .waitFor((t) => !asking.test(t) || /❯ Yes/.test(t) !== onYes, 'the dialog took the key', { timeoutMs: 1_000 })
        .catch(() => undefined);
    }
    await waitForDb(
      'the call ran and the turn ended',
      () => root().status === 'idle' && root().activity === null,
      60_000,
    );
    expect(term.text()).toMatch(/Tool output: ID +STATUS/);
  }, 240_000);
});

describe('headless agents keep agents.permissionMode in an auto-mode home', () => {
  it('a call no rule allows waits for klaude approve; "always" writes the rule to .claude/settings.local.json', async () => {
    const home = autoHome();
    const cmd = 'python3 -c "print(6*7)"';
    const started = await runKlaude(['start', '--detach', 'general', `run: ${cmd}`], {
      env: home.env,
      cwd: home.projectDir,
      timeoutMs: 60_000,
    });
    expect(started.code, started.stderr).toBe(0);
    const id = sessions(home).find((s) => s.type === 'general')!.id;
    await waitForDb('the request waiting', () => sessionStatus(home, id) === 'waiting', 60_000);
    // As the person would, from a terminal of their own (approve refuses a caller without one).
    const approve = home.own(
      spawnPty(process.execPath, [KLAUDE_CLI, 'approve', '--always', shortId(id)], {
        cwd: home.projectDir,
        env: home.env,
      }),
    );
    expect((await approve.exited).exitCode, approve.text()).toBe(0);
    await waitForDb('the agent done', () => sessionStatus(home, id) === 'done', 60_000);
    const local = JSON.parse(readFileSync(join(home.projectDir, '.claude', 'settings.local.json'), 'utf8')) as {
      permissions: { allow: string[] };
    };
    expect(local.permissions.allow).toEqual([expect.stringContaining('python3 -c')]);
    const log = await runKlaude(['logs', shortId(id)], { env: home.env, cwd: home.projectDir, timeoutMs: 60_000 });
    expect(log.stdout).toContain('Tool output: 42');
  });
});

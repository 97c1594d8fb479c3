// `klaude ui` end to end with a permission request: the built CLI under a PTY, an agent started
// from the dashboard asks (real claude, stand-in reply: a Bash command no setting allows), the
// request shows pinned above its log with the command and the keys, the title counts it, and
// `A` lets the command run to `■ done`.
import { beforeAll, expect, it } from 'vitest';
import type { PtySession } from '../support/pty-driver.js';
import { DASHBOARD, startUi, uiDemoHome, type UiDemoHome } from '../ui/helpers/ui-e2e.js';
import { useAgentHomes } from './agent-home.js';
import { runResponder } from './supervisor-helpers.js';

const fx = useAgentHomes({ responder: runResponder });
let demo: UiDemoHome;
let term: PtySession | undefined;

beforeAll(() => {
  // No allowBash: the agent's command needs an approval.
  demo = uiDemoHome(fx, { allowBash: false });
});

it('an agent asks; the dashboard shows the request and A allows it', async () => {
  term = demo.home.own(startUi(demo, { cols: 150, rows: 34 }));
  await term.waitForText(DASHBOARD, { timeoutMs: 20_000 });
  await term.waitForText('? help');
  term.write('s');
  await term.waitForText('general — plain Claude Code agent');
  term.press('enter');
  await term.waitForText('start an agent · 2/2 prompt');
  term.type('run: python3 -c "print(6*7)"');
  term.press('enter');
  await term.waitForText(/started general \w{8}/, { timeoutMs: 30_000 });
  // The request, pinned above the log: tool, command, reason, keys.
  await term.waitForText(/\? needs approval · request \d+ · Bash/, { timeoutMs: 60_000 });
  const screen = term.text();
  expect(screen).toContain('$ python3 -c "print(6*7)"');
  expect(screen).toContain('This command requires approval');
  expect(screen).toContain('A allow once · W allow always (Bash(python3 -c "print(6*7)")) · D deny');
  // The title counts it (the demo already has one waiting session).
  await term.waitFor(() => term!.rawOutput().includes('klaude (2 waiting)'), 'the title count');

  term.write('A');
  await term.waitForText('Tool output: 42', { timeoutMs: 45_000 });
  await term.waitForText(/■ done/, { timeoutMs: 45_000 });
  expect(term.text()).not.toContain('? needs approval ·');
  // The runtime found the answer came from the dashboard (a running klaude instance).
  expect(term.text()).toContain('✓ allowed by person in the dashboard');
  term.write('q');
  await term.waitForText('agents are still working');
  term.write('y');
  expect((await term.exited).exitCode).toBe(0);
}, 180_000);

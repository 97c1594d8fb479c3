// Running the built `klaude ui` under the PTY driver in a seeded demo home, with the real claude
// (against the Messages API stand-in) as the program it hands the terminal to. An e2e file takes
// its home from test/e2e/agent-home.ts (uiDemoHome); uiHome is the same home for scripts outside vitest.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeBin } from '../../support/claude-bin.js';
import { KLAUDE_CLI } from '../../support/klaude-bin.js';
import type { MockAnthropic } from '../../support/mock-anthropic.js';
import { spawnPty, type PtySession } from '../../support/pty-driver.js';
import type { TempHome } from '../../support/temp-home.js';
import type { AgentHome, AgentHomeOptions, AgentHomes } from '../../e2e/agent-home.js';
import { makeDemoHome, seedDemoHome, type DemoHome } from './demo-home.js';

/** The demo home of an e2e file: an AgentHome (its terminals owned, cleaned by the fixture). */
export type UiDemoHome = DemoHome & { home: AgentHome };

/**
 * A home of the file's fixture with the demo project seeded, Bash allowed unless `allowBash:
 * false`, and CI unset (Ink must run interactive in the PTY even when the test runner says CI).
 */
export function uiDemoHome(fx: AgentHomes, opts: AgentHomeOptions = {}): UiDemoHome {
  return seedDemoHome(fx.home({ prefix: 'klaude-ui-', allowBash: true, ...opts, env: { CI: undefined, ...opts.env } }));
}

export function uiHome(mock: MockAnthropic): DemoHome {
  const demo = makeDemoHome({ baseUrl: mock.url, allowBash: true });
  writeFileSync(join(demo.home.klaudeHome, 'config.yaml'), `claude:\n  binary: ${claudeBin()}\n`);
  // Ink must run interactive in the PTY even when the test runner says CI.
  delete demo.home.env.CI;
  return demo;
}

/** `klaude ui` in the home (a DemoHome, or any `{ home }`) under the PTY driver. */
export function startUi(
  demo: { home: TempHome },
  size = { cols: 120, rows: 34 },
  env: Record<string, string> = {},
): PtySession {
  return spawnPty(process.execPath, [KLAUDE_CLI, 'ui'], {
    cwd: demo.home.projectDir,
    env: { ...demo.home.env, ...env },
    ...size,
  });
}

/** The frame's rows (the last terminal row is kept empty so Ink never clears the screen). */
export function frameRows(term: PtySession): string[] {
  const lines = term.lines();
  return lines.slice(0, lines.length - 1);
}

/** Both panes of the dashboard are on screen. */
export const DASHBOARD = /╭─ sessions \d+/;

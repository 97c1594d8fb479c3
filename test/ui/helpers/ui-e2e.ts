// Running the built `klaude ui` under the PTY driver in a seeded demo home, with the real claude
// (against the Messages API stand-in) as the program it hands the terminal to.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { claudeBin } from '../../support/claude-bin.js';
import { KLAUDE_CLI } from '../../support/klaude-bin.js';
import type { MockAnthropic } from '../../support/mock-anthropic.js';
import { spawnPty, type PtySession } from '../../support/pty-driver.js';
import { makeDemoHome, type DemoHome } from './demo-home.js';

export function uiHome(mock: MockAnthropic): DemoHome {
  const demo = makeDemoHome({ baseUrl: mock.url, allowBash: true });
  writeFileSync(join(demo.home.klaudeHome, 'config.yaml'), `claude:\n  binary: ${claudeBin()}\n`);
  // Ink must run interactive in the PTY even when the test runner says CI.
  delete demo.home.env.CI;
  return demo;
}

export function startUi(demo: DemoHome, size = { cols: 120, rows: 34 }, env: Record<string, string> = {}): PtySession {
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

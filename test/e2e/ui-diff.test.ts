// The dashboard's diff key end to end: a real `--worktree` agent (the real claude against the
// stand-in) writes a file through Bash; `klaude ui` under a PTY shows its diff on `c` (file header,
// hunk, the added line, in colour) and its log again on the next `c`; once merged, archiving it
// removes its worktree.
import { execFileSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { spawnPty, type PtySession } from '../support/pty-driver.js';
import { runThen, useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({ responder: runThen('Ran it.') });
let home: AgentHome;
let term: PtySession | undefined;

beforeAll(async () => {
  // Ink must run interactive in the PTY (no CI).
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n', env: { CI: undefined } });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], {
      cwd: home.projectDir,
      env: home.env,
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(home.projectDir, 'base.txt'), 'base\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
});

afterAll(async () => {
  await term?.dispose();
});

describe('klaude ui diff key', () => {
  it('c shows the worktree agent diff in the right pane, c again its log', async () => {
    const start = await home.k(
      ['start', 'general', 'run: printf "line one\\nline two\\n" > from-agent.txt', '--worktree'],
      { timeoutMs: 120_000 },
    );
    expect(start.code, start.stderr).toBe(0);
    const id = /started (\w{8})/.exec(start.stdout)![1]!;

    term = spawnPty(process.execPath, [KLAUDE_CLI, 'ui'], { cwd: home.projectDir, env: home.env, cols: 120, rows: 30 });
    await term.waitForText(`log · general ${id}`, { timeoutMs: 30_000 });
    await term.waitForText('c diff');
    expect(term.text()).toMatch(/✓ general wt · run: /); // tagged: it works on a branch of its own
    term.write('c');
    await term.waitForText(`diff · general ${id}`, { timeoutMs: 15_000 });
    await term.waitForText('▌ from-agent.txt', { timeoutMs: 15_000 });
    const screen = term.text();
    expect(screen).toContain(`branch klaude/${id.toLowerCase()}-general`);
    expect(screen).toContain('@@ -0,0 +1,2 @@');
    expect(screen).toContain('+line one');
    expect(screen).toContain('+line two');
    expect(screen).toMatch(/1 file · c: log/);
    expect(term.rawOutput()).toMatch(/\x1b\[(?:\d+;)*32(?:;\d+)*m\+line one/); // added lines in green
    term.write('c');
    await term.waitForText(`log · general ${id}`);
    await term.waitForText('→ Bash: printf');

    // Merged, then archived: its worktree and branch go with it.
    const wt = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
    const { worktree_path: wtPath } = wt.prepare('SELECT worktree_path FROM sessions').get() as {
      worktree_path: string;
    };
    wt.close();
    const merged = await home.k(['merge', id]);
    expect(merged.code, merged.stderr).toBe(0);
    expect(existsSync(wtPath)).toBe(true);
    term.write('d');
    await term.waitForText('Archive general');
    term.write('y');
    await term.waitForText(`archived general ${id}`, { timeoutMs: 15_000 });
    expect(term.text()).not.toContain('kept the worktree');
    expect(existsSync(wtPath)).toBe(false);
    expect(execFileSync('git', ['branch', '--list', 'klaude/*'], { cwd: home.projectDir, encoding: 'utf8' })).toBe('');
    term.write('q');
    const exit = await term.exited;
    expect(exit.exitCode).toBe(0);
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: home.projectDir, encoding: 'utf8' })).toBe('');
    const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
    try {
      expect(db.prepare('SELECT count(*) AS n FROM sessions WHERE worktree_branch IS NOT NULL').get()).toEqual({
        n: 1,
      });
    } finally {
      db.close();
    }
  }, 180_000);
});

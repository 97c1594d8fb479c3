// A `--worktree` agent opened with `klaude talk`: the real claude runs in the agent's worktree
// (its Bash tool's pwd is the worktree), resuming the conversation the headless run had there.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PtySession } from '../support/pty-driver.js';
import { READY, readDb, runResponder, submit } from './supervisor-helpers.js';
import { startTalk, stopHosts } from './talk-helpers.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({ responder: runResponder });
let home: AgentHome;
let term: PtySession | undefined;
let sessionId: string | undefined;

beforeAll(async () => {
  home = fx.home({ supervisor: true, config: 'agents:\n  allowedTools: [Bash]\n' });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], { cwd: home.projectDir });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(home.projectDir, 'base.txt'), 'base\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
});
afterAll(async () => {
  await term?.dispose();
  if (home && sessionId) await stopHosts(home, sessionId);
});

describe('klaude talk on a worktree agent', () => {
  it('runs claude in the agent’s worktree on its conversation', async () => {
    const start = await home.k(['start', 'general', 'first words in the worktree', '--worktree'], {
      timeoutMs: 120_000,
    });
    expect(start.code, start.stderr).toBe(0);
    const short = /started (\w{8})/.exec(start.stdout)![1]!;
    const row = readDb(
      home,
      (db) =>
        db.prepare('SELECT id, worktree_path AS wt FROM sessions WHERE id LIKE ?').get(`%${short}`) as {
          id: string;
          wt: string;
        },
    );
    sessionId = row.id;
    // Not trusted by hand: claude 2.1.197 asks no trust question in a worktree of a trusted repository.
    term = startTalk(home, [short]);
    await term.waitForText(READY, { timeoutMs: 45_000 });
    await term.waitForText('Reply to: first words in the worktree');
    await submit(term, 'run: pwd');
    await term.waitForText(`Tool output: ${row.wt}`, { timeoutMs: 45_000 });
  }, 180_000);
});

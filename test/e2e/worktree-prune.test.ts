// `klaude worktree prune` and ignored files, with real agents (the real claude against the
// stand-in, Bash allowed): a finished agent's worktree with nothing to merge but ignored files
// (.env, notes/ — in no commit, so lost with the worktree) is kept and the files are named;
// `--force` removes it and says which went with it; a worktree without any goes as before.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runThen, useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({ responder: runThen('Ran it.') });
let home: AgentHome;

beforeAll(() => {
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n', timeoutMs: 120_000 });
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], {
      cwd: home.projectDir,
      env: home.env,
    });
  git('init', '-q', '-b', 'main');
  writeFileSync(join(home.projectDir, '.gitignore'), '.env\nnotes/\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
});

const klaude = (args: string[]) => home.k(args);

async function startInWorktree(prompt: string): Promise<{ id: string; path: string }> {
  const r = await klaude(['start', 'general', prompt, '--worktree']);
  expect(r.code, r.stderr).toBe(0);
  const m = /started (\w{8}).*?in worktree (\S+) \(branch/s.exec(r.stdout)!;
  return { id: m[1]!, path: m[2]! };
}

describe('klaude worktree prune and ignored files', () => {
  it('keeps a worktree holding ignored files and names them; --force removes it and says what went', async () => {
    const keeper = await startInWorktree('run: echo KEY=secret > .env && mkdir notes && echo idea > notes/a.md');
    const plain = await startInWorktree('run: true');
    expect(readFileSync(join(keeper.path, '.env'), 'utf8')).toBe('KEY=secret\n');

    const list = await klaude(['worktree', 'list']);
    expect(list.stdout).toMatch(new RegExp(`${keeper.id} +general +empty +2 ignored +\\S+ +${keeper.path}\\n`));
    const listJson = JSON.parse((await klaude(['worktree', 'list', '--json'])).stdout);
    expect(listJson.worktrees.find((w: { shortId: string }) => w.shortId === keeper.id).ignored).toEqual([
      '.env',
      'notes/',
    ]);

    const prune = await klaude(['worktree', 'prune']);
    expect(prune.code).toBe(1);
    expect(prune.stdout).toContain(
      `kept ${keeper.id}'s worktree: it holds ignored files that are in no commit: .env, notes/ (prune ${keeper.id} --force removes them with it)\n`,
    );
    expect(prune.stdout).toContain(`removed ${plain.id}'s worktree and branch (empty)\n`);
    expect(existsSync(join(keeper.path, '.env'))).toBe(true);
    expect(existsSync(plain.path)).toBe(false);

    const forced = await klaude(['worktree', 'prune', keeper.id, '--force']);
    expect(forced.code, forced.stdout).toBe(0);
    expect(forced.stdout).toBe(
      `removed ${keeper.id}'s worktree and branch (empty), and with it its ignored files: .env, notes/\n`,
    );
    expect(existsSync(keeper.path)).toBe(false);

    const help = await klaude(['worktree', '--help']);
    expect(help.stdout).toMatch(/ignored files/);
    expect(help.stdout).toMatch(/--force .*ignored files/);
  }, 180_000);
});

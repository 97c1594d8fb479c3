// `--worktree` agents end to end: the real claude (Bash allowed) against the stand-in writes files
// through its Bash tool; klaude keeps them out of the person's tree, shows them with `klaude diff`,
// brings them in with `klaude merge` (or refuses, changing nothing), and prunes the worktree.
// Also: a Bash-created file counts in "files created" for an agent in the shared tree.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { KLAUDE_CLI } from '../support/klaude-bin.js';
import { spawnPty } from '../support/pty-driver.js';
import { runThen, useAgentHomes, type AgentHome } from './agent-home.js';

/** Prompts of the form `run: <shell command>` make the agent run it through Bash, then finish. */
const fx = useAgentHomes({ responder: runThen('Ran it.') });
let home: AgentHome;

beforeAll(() => {
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n', timeoutMs: 120_000 });
  const p = home.projectDir;
  gitIn(p, 'init', '-q', '-b', 'main');
  writeFileSync(join(p, 'base.txt'), 'base line\n');
  gitIn(p, 'add', '-A');
  gitIn(p, 'commit', '-q', '-m', 'base');
});

function gitIn(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Person', '-c', 'user.email=person@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    env: home.env,
  });
}

// A wide COLUMNS: `sessions` in a pipe fits the width it is given (else 100 columns).
const klaude = (args: string[], cwd = home.projectDir) => home.k(args, { env: { COLUMNS: '250' }, cwd });
const idFrom = (stdout: string): string => /started (\w{8})/.exec(stdout)![1]!;

function sessionRow(short: string): {
  worktree_path: string | null;
  worktree_branch: string | null;
  worktree_base: string | null;
} {
  const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    return db
      .prepare('SELECT worktree_path, worktree_branch, worktree_base FROM sessions WHERE id LIKE ?')
      .get(`%${short}`) as never;
  } finally {
    db.close();
  }
}

/** Everything that says what state the person's tree is in. */
const treeState = () => ({
  head: gitIn(home.projectDir, 'rev-parse', 'HEAD').trim(),
  status: gitIn(home.projectDir, 'status', '--porcelain', '--untracked-files=all'),
  base: readFileSync(join(home.projectDir, 'base.txt'), 'utf8'),
  merging: existsSync(join(home.projectDir, '.git', 'MERGE_HEAD')),
});

describe('klaude start --worktree', () => {
  it('keeps a Bash-created file out of the tree; diff shows it, merge brings it in, prune removes the worktree', async () => {
    const before = treeState();
    const start = await klaude(['start', 'general', 'run: echo hello-from-agent > made.txt', '--worktree']);
    expect(start.code, start.stderr).toBe(0);
    const id = idFrom(start.stdout);
    const row = sessionRow(id);
    expect(row.worktree_branch).toBe(`klaude/${id.toLowerCase()}-general`);
    expect(row.worktree_path).toMatch(
      new RegExp(`^${home.klaudeHome}/projects/[0-9a-f]{24}/worktrees/${id.toLowerCase()}$`),
    );
    expect(row.worktree_base).toBe(before.head);
    expect(start.stdout).toContain(`in worktree ${row.worktree_path} (branch ${row.worktree_branch})`);
    // The file was made in the worktree (and the summary says so), not in the person's tree.
    // Paths relative to the worktree (as `klaude diff` prints them).
    expect(start.stdout).toContain('files created: made.txt');
    expect(readFileSync(join(row.worktree_path!, 'made.txt'), 'utf8')).toBe('hello-from-agent\n');
    expect(existsSync(join(home.projectDir, 'made.txt'))).toBe(false);
    expect(treeState()).toEqual(before);

    // Inside the worktree klaude sees the same project (an agent's own `klaude start` lands there).
    const inside = JSON.parse((await klaude(['sessions', '--json'], row.worktree_path!)).stdout);
    expect(JSON.stringify(inside)).toContain(id);

    expect((await klaude(['sessions', '-v'])).stdout).toContain(`branch ${row.worktree_branch}`);

    const diff = await klaude(['diff', id]);
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).toContain('+++ b/made.txt');
    expect(diff.stdout).toContain('+hello-from-agent');
    expect(diff.stderr).toContain(`branch ${row.worktree_branch}`);
    const stat = await klaude(['diff', id, '--stat']);
    expect(stat.stdout).toMatch(
      / made\.txt \| \+1 -0 \(added\)\n 1 file changed, 1 insertion\(\+\), 0 deletions\(-\)\n/,
    );
    const json = JSON.parse((await klaude(['diff', id, '--json'])).stdout);
    expect(json).toMatchObject({
      kind: 'worktree',
      approximate: false,
      branch: row.worktree_branch,
      files: [{ path: 'made.txt', status: 'added', added: 1, deleted: 0 }],
    });

    const merge = await klaude(['merge', id]);
    expect(merge.code, merge.stderr).toBe(0);
    expect(merge.stdout).toContain(`committed the uncommitted work of general ${id} on ${row.worktree_branch} first`);
    expect(merge.stdout).toContain(`merged ${row.worktree_branch} into main (1 file: made.txt)`);
    expect(readFileSync(join(home.projectDir, 'made.txt'), 'utf8')).toBe('hello-from-agent\n');
    expect(gitIn(home.projectDir, 'status', '--porcelain')).toBe('');

    const list = JSON.parse((await klaude(['worktree', 'list', '--json'])).stdout);
    expect(list.worktrees).toMatchObject([{ shortId: id, state: 'merged' }]);
    const prune = await klaude(['worktree', 'prune']);
    expect(prune.code, prune.stderr).toBe(0);
    expect(prune.stdout).toBe(`removed ${id}'s worktree and branch (merged)\n`);
    expect(existsSync(row.worktree_path!)).toBe(false);
    expect(gitIn(home.projectDir, 'branch', '--list', row.worktree_branch!)).toBe('');
    expect(gitIn(home.projectDir, 'worktree', 'list')).not.toContain(row.worktree_path!);
    // Resuming it now fails with why, instead of running somewhere else.
    const again = await klaude(['message', id, 'one more thing', '-f']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(
      `the agent's worktree ${row.worktree_path} was removed (klaude worktree prune): it has nowhere to work [E_NO_WORKTREE]`,
    );
  }, 180_000);

  it('refuses a conflicting merge and a dirty tree, changing nothing; prune keeps unmerged work without --force', async () => {
    const start = await klaude(['start', 'general', 'run: echo agent version > base.txt', '--worktree']);
    expect(start.code, start.stderr).toBe(0);
    const id = idFrom(start.stdout);
    const row = sessionRow(id);
    // Meanwhile the person changed the same line.
    writeFileSync(join(home.projectDir, 'base.txt'), 'person version\n');
    const dirty = treeState();
    const refusedDirty = await klaude(['merge', id]);
    expect(refusedDirty.code).toBe(1);
    expect(refusedDirty.stderr).toMatch(/has uncommitted changes: nothing was merged/);
    expect(refusedDirty.stderr).toContain('E_DIRTY_TREE');
    expect(treeState()).toEqual(dirty);

    gitIn(home.projectDir, 'commit', '-q', '-am', 'person edit');
    const before = treeState();
    const refused = await klaude(['merge', id]);
    expect(refused.code).toBe(1);
    expect(refused.stderr.trim().split('\n')[0]).toContain(
      `klaude: merging ${row.worktree_branch} into main would conflict in base.txt: your tree was not changed`,
    );
    expect(refused.stderr).toContain('E_MERGE_CONFLICT');
    expect(refused.stderr).toContain(`(its uncommitted work was committed on ${row.worktree_branch})`);
    expect(treeState()).toEqual(before);

    const prune = await klaude(['worktree', 'prune']);
    expect(prune.code).toBe(1);
    expect(prune.stdout).toContain(`kept ${id}'s worktree: unmerged commits on ${row.worktree_branch}`);
    expect(existsSync(row.worktree_path!)).toBe(true);
    // On a terminal it asks; "n" keeps it.
    const tty = spawnPty(process.execPath, [KLAUDE_CLI, 'worktree', 'prune'], {
      cwd: home.projectDir,
      env: home.env,
      cols: 200,
      rows: 20,
    });
    try {
      await tty.waitForText(
        `general ${id}'s worktree has commits not merged into your branch (${row.worktree_branch}). Remove it and its branch anyway? [y/N]`,
        { timeoutMs: 20_000 },
      );
      tty.write('n\r');
      await tty.waitForText(`kept ${id}'s worktree`);
      expect((await tty.exited).exitCode).toBe(1);
    } finally {
      await tty.dispose();
    }
    expect(existsSync(row.worktree_path!)).toBe(true);
    const forced = await klaude(['worktree', 'prune', id, '--force']);
    expect(forced.code, forced.stdout).toBe(0);
    expect(existsSync(row.worktree_path!)).toBe(false);
  }, 180_000);

  it('outside a git repository fails with one line and starts nothing', async () => {
    const plain = join(home.root, 'plain');
    mkdirSync(plain, { recursive: true });
    home.trustDir(plain);
    const count = () => {
      const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
      try {
        return (db.prepare('SELECT count(*) AS n FROM sessions').get() as { n: number }).n;
      } finally {
        db.close();
      }
    };
    const before = count();
    const r = await klaude(['start', 'general', 'anything', '--worktree'], plain);
    expect(count()).toBe(before);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')[0]).toMatch(/--worktree needs a git repository, and .*plain is not in one/);
    expect(r.stderr).toContain('E_NOT_GIT_REPO');
  });
});

describe('files from git', () => {
  it('counts a file created through Bash in the shared tree, and klaude diff shows it as approximate', async () => {
    const start = await klaude(['start', 'general', 'run: echo shared > shared-made.txt']);
    expect(start.code, start.stderr).toBe(0);
    const id = idFrom(start.stdout);
    expect(start.stdout).toContain('files created: shared-made.txt');
    const diff = await klaude(['diff', id]);
    expect(diff.stderr).toContain('approximate');
    expect(diff.stdout).toContain('+shared');
    gitIn(home.projectDir, 'add', '-A');
    gitIn(home.projectDir, 'commit', '-q', '-m', 'keep');
  }, 180_000);
});

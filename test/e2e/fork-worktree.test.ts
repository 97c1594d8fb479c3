// `klaude fork` of a `--worktree` agent, with the real claude against the stand-in (Bash allowed):
// the fork gets a worktree of its own, branched from the origin's commit and carrying the
// origin's uncommitted changes (its conversation says they were made, so it sees them), where its
// claude runs; it is the fork's like any worktree agent's (diff, list, prune), and removing the
// finished origin's worktree leaves the fork working.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { claudeProjectSlug } from '../../src/claude/transcript.js';
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
  writeFileSync(join(home.projectDir, 'base.txt'), 'base\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
});

interface Row {
  id: string;
  worktree_path: string | null;
  worktree_branch: string | null;
  worktree_base: string | null;
  forked_from: string | null;
}

function row(id: string): Row {
  const db = new Database(join(home.klaudeHome, 'sessions.db'), { readonly: true });
  try {
    return db
      .prepare('SELECT id, worktree_path, worktree_branch, worktree_base, forked_from FROM sessions WHERE id = ?')
      .get(id) as Row;
  } finally {
    db.close();
  }
}

const idOf = (stdout: string): string => (JSON.parse(stdout) as { sessions: { id: string }[] }).sessions[0]!.id;

describe('klaude fork of a worktree agent', () => {
  it('works in a worktree of its own, with the origin’s commit and uncommitted changes; survives the origin’s prune', async () => {
    const k = home.k;
    const work =
      'run: echo committed > c.txt && git add c.txt && git -c user.name=A -c user.email=a@example.com commit -qm c' +
      ' && echo wip > wip.txt && echo changed >> base.txt && mkdir -p sub && echo origin-marker-61 > sub/o.txt';
    const started = await k(['start', 'general', work, '--worktree', '--json']);
    expect(started.code, started.stderr).toBe(0);
    const originId = idOf(started.stdout);
    expect((await k(['wait', originId])).code).toBe(0);
    const origin = row(originId);
    expect(readFileSync(join(origin.worktree_path!, 'wip.txt'), 'utf8')).toBe('wip\n');

    const forked = await k([
      'fork',
      originId,
      'run: pwd > where.txt && cat c.txt wip.txt base.txt > seen.txt',
      '--json',
    ]);
    expect(forked.code, forked.stderr).toBe(0);
    const { id: forkId, nativeSessionId } = JSON.parse(forked.stdout) as { id: string; nativeSessionId: string };
    expect((await k(['wait', forkId])).code).toBe(0);
    const fork = row(forkId);

    // Its own worktree and branch, from the origin's commit; the diff counts from the origin's base.
    expect(fork.forked_from).toBe(originId);
    expect(fork.worktree_path).toMatch(new RegExp(`/worktrees/${forkId.slice(-8).toLowerCase()}$`));
    expect(fork.worktree_path).not.toBe(origin.worktree_path);
    expect(fork.worktree_branch).toBe(`klaude/${forkId.slice(-8).toLowerCase()}-general`);
    expect(fork.worktree_base).toBe(origin.worktree_base);
    const originHead = execFileSync('git', ['rev-parse', origin.worktree_branch!], {
      cwd: home.projectDir,
      encoding: 'utf8',
    });
    const forkHead = execFileSync('git', ['rev-parse', fork.worktree_branch!], {
      cwd: home.projectDir,
      encoding: 'utf8',
    });
    expect(forkHead).toBe(originHead);

    // Its claude ran there, and saw what its conversation says was done: the commit and the uncommitted changes.
    expect(readFileSync(join(fork.worktree_path!, 'where.txt'), 'utf8').trim()).toBe(fork.worktree_path);
    expect(readFileSync(join(fork.worktree_path!, 'seen.txt'), 'utf8')).toBe('committed\nwip\nbase\nchanged\n');
    expect(readFileSync(join(fork.worktree_path!, 'sub', 'o.txt'), 'utf8')).toBe('origin-marker-61\n');
    expect(existsSync(join(origin.worktree_path!, 'where.txt'))).toBe(false);
    // The fork's first request carried the origin's conversation.
    const first = fx.mock.mainRequests().find((r) => JSON.stringify(r.body).includes('pwd > where.txt'))!;
    expect(JSON.stringify(first.body)).toContain('echo committed > c.txt');
    // …and told it where it works now (in its first message: 2.1.332 keeps a resumed conversation's
    // system prompt).
    expect(JSON.stringify(first.body.messages)).toContain(
      `You work in a git worktree of your own, ${fork.worktree_path}`,
    );

    // The copy of the origin's transcript claude forked from is gone; the fork's own is there.
    const forkProject = join(home.home, '.claude', 'projects', claudeProjectSlug(fork.worktree_path!));
    expect(readdirSync(forkProject).filter((f) => f.endsWith('.jsonl'))).toEqual([`${nativeSessionId}.jsonl`]);

    // The fork owns it: diff, list.
    const diff = await k(['diff', forkId]);
    expect(diff.stdout).toContain('where.txt');
    expect(diff.stdout).toContain('wip.txt');
    const list = JSON.parse((await k(['worktree', 'list', '--json'])).stdout) as { worktrees: { sessionId: string }[] };
    expect(list.worktrees.map((w) => w.sessionId).sort()).toEqual([originId, forkId].sort());

    // The finished origin's worktree goes; the fork's stays, and the fork goes on working in it.
    const pruned = await k(['worktree', 'prune', originId, '--force']);
    expect(pruned.stdout).toContain(`removed ${originId.slice(-8)}'s worktree and branch`);
    expect(existsSync(origin.worktree_path!)).toBe(false);
    expect(existsSync(join(fork.worktree_path!, 'seen.txt'))).toBe(true);
    expect((await k(['message', forkId, 'run: echo again > again.txt'])).code).toBe(0);
    expect((await k(['wait', forkId])).code).toBe(0);
    expect(readFileSync(join(fork.worktree_path!, 'again.txt'), 'utf8')).toBe('again\n');
  });
});

// Files an agent changed, read from git (a real repository in a temp dir): before/after snapshots
// of the shared tree, a worktree's changes against its base without touching its real index, the
// summary preferring git's lists, transcript usage sums, branch names, the `worktree:` field.
import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseFrontmatter } from '../../src/agent-types/frontmatter.js';
import { toDefinition } from '../../src/agent-types/validate.js';
import { transcriptUsage } from '../../src/claude/transcript-usage.js';
import type { AgentEvent } from '../../src/core/events.js';
import { collectCompletionInfo } from '../../src/logs/summary.js';
import { changesSince, snapshotTree, worktreeChanges } from '../../src/git/changes.js';
import { worktreeBranchName } from '../../src/git/worktree.js';

let dir: string;
const git = (...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd: dir, encoding: 'utf8' });

beforeEach(() => {
  dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'klaude-git-')));
  git('init', '-q', '-b', 'main');
  writeFileSync(path.join(dir, 'a.txt'), 'a\n');
  writeFileSync(path.join(dir, 'b.txt'), 'b\n');
  writeFileSync(path.join(dir, 'dirty.txt'), 'x\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  writeFileSync(path.join(dir, 'dirty.txt'), 'dirty before the run\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('changesSince', () => {
  it('counts files written behind the tools’ back; files dirty before count only when they changed again', () => {
    const before = snapshotTree(path.join(dir))!;
    expect(before.files.has('dirty.txt')).toBe(true);
    writeFileSync(path.join(dir, 'made-by-bash.txt'), 'new\n'); // like `echo > file` in Bash
    writeFileSync(path.join(dir, 'a.txt'), 'a changed\n'); // like `sed -i`
    unlinkSync(path.join(dir, 'b.txt'));
    const out = changesSince(before)!;
    expect(out.created).toEqual([path.join(dir, 'made-by-bash.txt')]);
    expect(out.edited.sort()).toEqual([path.join(dir, 'a.txt'), path.join(dir, 'b.txt')]);
    // Touching the already-dirty file again counts.
    const again = snapshotTree(dir)!;
    writeFileSync(path.join(dir, 'dirty.txt'), 'dirty and longer after\n');
    utimesSync(path.join(dir, 'dirty.txt'), new Date(), new Date(Date.now() + 5000));
    expect(changesSince(again)!.edited).toEqual([path.join(dir, 'dirty.txt')]);
  });

  it("leaves out a sandbox's placeholders (untracked, empty, read-only), not an agent's empty file", () => {
    const before = snapshotTree(dir)!;
    writeFileSync(path.join(dir, '.bashrc'), '', { mode: 0o444 });
    writeFileSync(path.join(dir, 'empty.txt'), '');
    expect(changesSince(before)!.created).toEqual([path.join(dir, 'empty.txt')]);
    // Gone when the command ends: nothing either.
    unlinkSync(path.join(dir, '.bashrc'));
    const during = snapshotTree(dir)!;
    writeFileSync(path.join(dir, '.gitconfig'), '', { mode: 0o444 });
    expect(changesSince(during)).toEqual({ created: [], edited: [] });
  });

  it('is null outside a git repository', () => {
    expect(snapshotTree(tmpdir())).toBeNull();
  });
});

describe('worktreeChanges', () => {
  it('reports committed, uncommitted and untracked work against the base, leaving the real index alone', () => {
    const base = git('rev-parse', 'HEAD').trim();
    git('checkout', '-q', 'dirty.txt');
    writeFileSync(path.join(dir, 'committed.txt'), 'c\n');
    git('add', 'committed.txt');
    git('commit', '-q', '-m', 'agent commit');
    writeFileSync(path.join(dir, 'a.txt'), 'uncommitted\n');
    writeFileSync(path.join(dir, 'untracked.txt'), 'u\n');
    writeFileSync(path.join(dir, '.zshrc'), '', { mode: 0o444 }); // a sandbox's placeholder: not work
    const index = readFileSync(path.join(dir, '.git', 'index'));
    const out = worktreeChanges(dir, base)!;
    expect(out.created.sort()).toEqual([path.join(dir, 'committed.txt'), path.join(dir, 'untracked.txt')]);
    expect(out.edited).toEqual([path.join(dir, 'a.txt')]);
    expect(readFileSync(path.join(dir, '.git', 'index')).equals(index)).toBe(true);
    expect(git('status', '--porcelain')).toBe(' M a.txt\n?? .zshrc\n?? untracked.txt\n');
  });
});

describe('completion summary files', () => {
  it("merges git's lists over every run with the tool calls; git wins where they disagree", () => {
    const ev = (e: Record<string, unknown>, i: number) => ({ ts: i, ...e }) as AgentEvent;
    const events = [
      { type: 'tool_call', id: 'w', name: 'Write', summary: '/p/existing.ts', input: { file_path: '/p/existing.ts' } },
      { type: 'tool_result', id: 'w', isError: false, output: '' },
      { type: 'done', status: 'done', filesCreated: ['/p/bash-made.txt'], filesEdited: ['/p/existing.ts'] },
      { type: 'user', text: 'more' },
      { type: 'done', status: 'done', filesCreated: ['/p/second-run.txt'], filesEdited: [] },
    ].map(ev);
    const info = collectCompletionInfo(events);
    expect(info.filesCreated).toEqual(['/p/bash-made.txt', '/p/second-run.txt']);
    expect(info.filesEdited).toEqual(['/p/existing.ts']);
  });
});

describe('transcriptUsage', () => {
  it('sums assistant usage once per message id (claude repeats it per content block)', () => {
    const f = path.join(dir, 't.jsonl');
    const a = (id: string, usage: Record<string, number>) =>
      JSON.stringify({ type: 'assistant', message: { id, usage } });
    writeFileSync(
      f,
      [
        JSON.stringify({ type: 'user', message: { content: 'hi' } }),
        a('m1', { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 1, output_tokens: 3 }),
        a('m1', { input_tokens: 10, cache_read_input_tokens: 5, cache_creation_input_tokens: 1, output_tokens: 3 }),
        a('m2', { input_tokens: 20, output_tokens: 7 }),
        '{"type":"assistant","message":{"id":"m3","usage":', // torn last line
      ].join('\n'),
    );
    expect(transcriptUsage([f, f, path.join(dir, 'missing.jsonl')])).toEqual({ tokensIn: 36, tokensOut: 10 });
  });
});

describe('transcriptUsage with a cache', () => {
  it('reads only what was appended since the last turn, keeping the sums and the dedupe across reads', () => {
    const f = path.join(dir, 't.jsonl');
    const cache = path.join(dir, 'usage');
    const a = (id: string, out: number) =>
      `${JSON.stringify({ type: 'assistant', message: { id, usage: { input_tokens: 10, output_tokens: out } } })}\n`;
    writeFileSync(f, a('m1', 1) + a('m2', 2));
    expect(transcriptUsage([f], cache)).toEqual({ tokensIn: 20, tokensOut: 3 });
    // The next turn: m2's second block (already counted), a new reply, and a line being written.
    appendFileSync(f, `${a('m2', 2)}${a('m3', 4)}{"type":"assistant","message":{"id":"m4","usage":{"input_tok`);
    expect(transcriptUsage([f], cache)).toEqual({ tokensIn: 30, tokensOut: 7 });
    appendFileSync(f, `ens":10,"output_tokens":8}}}\n`);
    expect(transcriptUsage([f], cache)).toEqual({ tokensIn: 40, tokensOut: 15 });
    expect(transcriptUsage([f])).toEqual({ tokensIn: 40, tokensOut: 15 }); // the same, read in one go
    // Rewritten shorter: read again from the start.
    writeFileSync(f, a('n1', 5));
    expect(transcriptUsage([f], cache)).toEqual({ tokensIn: 10, tokensOut: 5 });
  });
});

describe('naming and definitions', () => {
  it('names branches klaude/<shortid>-<type>, safe for git', () => {
    expect(worktreeBranchName('01JABCDEFGHJKMNPQRSTVWXYZ0', 'reviewer')).toBe('klaude/stvwxyz0-reviewer');
    expect(worktreeBranchName('01JABCDEFGHJKMNPQRSTVWXYZ0', 'x..y.lock')).toBe('klaude/stvwxyz0-x.y');
    git('check-ref-format', '--branch', worktreeBranchName('01JABCDEFGHJKMNPQRSTVWXYZ0', 'a:b'));
  });

  it('reads worktree: and Claude Code’s isolation: worktree from agent files', () => {
    const def = (text: string) => toDefinition(parseFrontmatter(text), '/p/.claude/agents/agent.md', 'project').def;
    expect(def('---\nworktree: true\n---\nbody\n').worktree).toBe(true);
    expect(def('---\nisolation: worktree\n---\nbody\n').worktree).toBe(true);
    expect(def('---\ndescription: x\n---\nbody\n').worktree).toBeUndefined();
    expect(() => def('---\nworktree: yes please\n---\n')).toThrow(/field 'worktree': must be true or false/);
  });
});

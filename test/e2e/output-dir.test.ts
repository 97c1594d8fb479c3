// An agent definition's outputDir behind a symlink, with the real claude against the stand-in: a
// link committed with the repository that points out of .claude/ refuses the start (typed error and
// hint, nothing run); a link the agent itself makes during its run keeps the output from being
// written there, and the log says why.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runThen, useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({ responder: runThen('Linked it.') });
let home: AgentHome;
let outside: string;

beforeAll(() => {
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n', timeoutMs: 120_000 });
  outside = join(home.root, 'outside');
  mkdirSync(outside);
  const p = home.projectDir;
  const agents = join(p, '.claude', 'agents');
  mkdirSync(agents, { recursive: true });
  writeFileSync(join(agents, 'reviewer.md'), '---\nname: reviewer\noutputDir: reviews\n---\nReview.\n');
  writeFileSync(join(agents, 'noter.md'), '---\nname: noter\noutputDir: notes\n---\nTake notes.\n');
  // Relative, as a link committed with a repository would be.
  symlinkSync('../../outside', join(p, '.claude', 'reviews'));
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'agents');
  expect(git('ls-files', '-s', '.claude/reviews')).toMatch(/^120000 /); // committed as a symlink
});

function git(...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], {
    cwd: home.projectDir,
    encoding: 'utf8',
    env: home.env,
  });
}

const klaude = (args: string[]) => home.k(args);

describe('outputDir through a symlink', () => {
  it('a committed symlink out of .claude/ refuses the start with a typed error and hint', async () => {
    const before = fx.mock.mainRequests().length;
    const r = await klaude(['start', 'reviewer', 'look at it']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(`klaude: outputDir 'reviews': the directory resolves to ${outside}`);
    expect(r.stderr).toContain('[E_AGENT_DEFINITION]');
    expect(r.stderr).toMatch(/hint: a symlink points out/);
    expect(fx.mock.mainRequests().length).toBe(before);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('a link made during the run: the output is not written through it, and the log says so', async () => {
    const r = await klaude(['start', 'noter', `run: ln -s ${outside} .claude/notes`]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('output not saved: outputDir');
    expect(readdirSync(outside)).toEqual([]);
    const id = /started (\w{8})/.exec(r.stdout)![1]!;
    const logs = await klaude(['logs', id]);
    expect(logs.stdout).toMatch(/output not saved: outputDir 'notes': the directory resolves to .*outside/);
    expect(logs.stdout).toContain('Linked it.');
  }, 120_000);
});

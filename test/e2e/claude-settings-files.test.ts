// Files an agent touched leave out what Claude Code rewrites itself: its own settings files in the
// project (`.claude/settings.json`, `.claude/settings.local.json`). Claude 2.1.332 rewrites them
// during a plain headless run; the run's summary must not call that the agent's work, while a file
// the agent writes through Bash still counts.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { claudeAtLeast } from '../support/claude-bin.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({
  responder: (r) => {
    if (r.isToolResult) return { text: 'Wrote it.' };
    if (r.prompt.includes('write-note')) return { bash: { command: 'echo hi > note-77.txt', description: 'note' } };
    if (r.prompt.includes('ignore-scratch'))
      return { bash: { command: 'echo scratch-5.txt > .gitignore', description: 'ignore it' } };
    return { text: `Reply to: ${r.prompt}` };
  },
});
let home: AgentHome;

beforeAll(() => {
  home = fx.home({ config: 'agents:\n  allowedTools: [Bash]\n', timeoutMs: 60_000 });
  git('init', '-q');
  mkdirSync(join(home.projectDir, '.claude'));
  writeFileSync(join(home.projectDir, 'README.md'), 'project\n');
  writeFileSync(join(home.projectDir, '.claude', 'settings.json'), '{"permissions":{"allow":["Read"]}}\n');
  git('add', '-A');
  git('-c', 'user.email=t@example.com', '-c', 'user.name=t', 'commit', '-qm', 'init');
  // The person's own rules, untracked (as claude's /permissions writes them).
  writeFileSync(join(home.projectDir, '.claude', 'settings.local.json'), '{"permissions":{"allow":["Bash(ls:*)"]}}\n');
});

const klaude = (args: string[]) => home.k(args);
const git = (...args: string[]) => execFileSync('git', args, { cwd: home.projectDir, env: home.env, encoding: 'utf8' });
const mtimes = () =>
  ['settings.json', 'settings.local.json'].map((f) => statSync(join(home.projectDir, '.claude', f)).mtimeMs);

it('a plain run: files edited none, whatever claude did to its own settings files', async () => {
  const before = mtimes();
  const r = await klaude(['start', 'general', 'just say hi']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/files edited: none\nfiles created: none\n/);
  // The settings files are the person's, unchanged.
  expect(mtimes()).toEqual(before);
  if (claudeAtLeast('2.1.332')) {
    // How the untracked file left `git status`: claude ignores it in the person's global excludes.
    expect(readFileSync(join(home.home, '.config', 'git', 'ignore'), 'utf8')).toContain(
      '**/.claude/settings.local.json',
    );
  }
});

it('a run that writes a file through Bash: that file counts, the settings files do not', async () => {
  const r = await klaude(['start', 'general', 'write-note please']);
  expect(r.code, r.stderr).toBe(0);
  expect(r.stdout).toMatch(/files edited: none\nfiles created: .*note-77\.txt\n/);
});

it('an untracked file that only became ignored during the run is not counted as edited', async () => {
  writeFileSync(join(home.projectDir, 'scratch-5.txt'), 'mine\n');
  expect(git('status', '--porcelain')).toContain('?? scratch-5.txt');
  const r = await klaude(['start', 'general', 'ignore-scratch please']);
  expect(r.code, r.stderr).toBe(0);
  expect(git('status', '--porcelain')).not.toContain('scratch-5.txt');
  // Relative to the project, as `klaude diff` prints paths.
  expect(r.stdout).toMatch(/files edited: none\nfiles created: \.gitignore\n/);
});

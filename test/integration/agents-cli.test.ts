// `klaude agents` through the built CLI, in a temp HOME and project.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runKlaude } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let t: TempHome | undefined;
afterEach(() => {
  t?.cleanup();
  t = undefined;
});

function write(dir: string, file: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), text);
  return join(dir, file);
}

function setup(): TempHome {
  t = makeTempHome({ prefix: 'klaude-agents-cli-' });
  const project = join(t.projectDir, '.claude', 'agents');
  const user = join(t.home, '.claude', 'agents');
  write(
    project,
    'reviewer.md',
    '---\ndescription: Reviews diffs for bugs and risky changes before they are merged into the main branch of this repository\nmodel: sonnet\n---\nReview.\n',
  );
  write(project, 'planner.md', '---\nname: planner\nruntime: codex\ndescription: Plans work\n---\n');
  write(user, 'reviewer.md', '---\ndescription: user reviewer (shadowed)\n---\n');
  write(user, 'notes.md', '---\ndescription: Takes notes\n---\n');
  return t;
}

describe('klaude agents', () => {
  it('lists types with source, runtime, model and a truncated description; problems on stderr; exit 0', async () => {
    const h = setup();
    const bad = write(
      join(h.projectDir, '.claude', 'agents'),
      'broken.md',
      '---\nname: broken\nreasoningEffort: 3\n---\n',
    );
    const r = await runKlaude(['agents'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^TYPE\s+SOURCE\s+RUNTIME\s+MODEL\s+DESCRIPTION$/);
    expect(lines.slice(1).map((l) => l.split(/\s{2,}/).slice(0, 4))).toEqual([
      ['general', 'built-in', 'claude', 'default'],
      ['notes', 'user', 'claude', 'default'],
      ['planner', 'project', 'codex', 'default'],
      ['reviewer', 'project', 'claude', 'sonnet'],
    ]);
    const reviewer = lines.find((l) => l.startsWith('reviewer'))!;
    expect(reviewer).toContain('Reviews diffs for bugs');
    expect(reviewer.endsWith('…')).toBe(true);
    expect(r.stdout).not.toContain('shadowed');
    expect(r.stderr).toBe(
      `problems in agent files:\n  ${bad}:3: field 'reasoningEffort': must be one of low, medium, high; got 3 (file skipped)\n`,
    );
  });

  it('--json gives agents and problems', async () => {
    const h = setup();
    write(join(h.home, '.claude', 'agents'), 'odd.md', 'no frontmatter here\n');
    const r = await runKlaude(['agents', '--json'], { env: h.env, cwd: h.projectDir });
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.agents.map((a: { name: string; source: string }) => `${a.name}:${a.source}`)).toEqual([
      'general:builtin',
      'notes:user',
      'planner:project',
      'reviewer:project',
    ]);
    expect(out.agents.find((a: { name: string }) => a.name === 'reviewer')).toMatchObject({
      model: 'sonnet',
      instructions: 'Review.',
      inheritProjectMcps: true,
    });
    expect(out.problems).toEqual([
      {
        path: join(h.home, '.claude', 'agents', 'odd.md'),
        line: 1,
        message: "no YAML frontmatter: the file must start with a '---' line",
        severity: 'error',
        source: 'user',
        name: 'odd',
      },
    ]);
    expect(r.stderr).toContain('odd.md:1: no YAML frontmatter');
  });

  it('with no agent files: only the built-in general, nothing on stderr', async () => {
    t = makeTempHome({ prefix: 'klaude-agents-cli-' });
    const r = await runKlaude(['agents'], { env: t.env, cwd: t.projectDir });
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.trimEnd().split('\n')).toHaveLength(2);
    expect(r.stdout).toMatch(/^general\s+built-in\s+claude\s+default\s+plain Claude Code agent/m);
  });

  it('is documented in --help, and takes no arguments', async () => {
    const h = setup();
    const overview = await runKlaude(['--help'], { env: h.env, cwd: h.projectDir });
    expect(overview.stdout).toMatch(/^\s+agents\s+list the agent types/m);
    const help = await runKlaude(['agents', '--help'], { env: h.env, cwd: h.projectDir });
    expect(help.code).toBe(0);
    for (const s of [
      '.claude/agents/<name>.md',
      'reasoningEffort',
      'inheritProjectMcps',
      'inheritParentMcps',
      'mcpServers',
      'outputDir',
      '--json',
    ]) {
      expect(help.stdout).toContain(s);
    }
    const extra = await runKlaude(['agents', 'reviewer'], { env: h.env, cwd: h.projectDir });
    expect(extra.code).toBe(2);
    expect(extra.stderr).toContain("unexpected argument 'reviewer'");
  });
});

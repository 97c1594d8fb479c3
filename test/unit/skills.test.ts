// Skills as claude finds and expands them (agent-types/skills.ts, plugin-skills.ts, skill-expand.ts):
// the order and shadowing, project directories nearest first up to the git top level, frontmatter
// names, plugins (enabled per settings, manifest `skills`, another project's install left out),
// the arguments put in as claude puts them, and the bounds of an expansion.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  EXPANSION_MAX,
  expandSkill,
  FILE_MAX,
  namedPaths,
  splitArguments,
  withArguments,
} from '../../src/agent-types/skill-expand.js';
import { discoverSkills, resolveSkill } from '../../src/agent-types/skills.js';
import { isKlaudeError } from '../../src/lib/errors.js';

let root = '';
let env: NodeJS.ProcessEnv = {};
const home = (): string => join(root, 'home');

function skill(dir: string, name: string, md: string, files: Record<string, string | Buffer> = {}): string {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'SKILL.md'), md);
  for (const [f, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, f, '..'), { recursive: true });
    writeFileSync(join(dir, name, f), text);
  }
  return join(dir, name);
}

beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'klaude-skills-')));
  mkdirSync(join(home(), '.claude'), { recursive: true });
  env = { HOME: home(), CLAUDE_CODE_DISABLE_POLICY_SKILLS: '1' };
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('discovery', () => {
  it('personal before project; project directories nearest first, up to the git top level only', () => {
    const repo = join(root, 'repo');
    const sub = join(repo, 'pkg', 'app');
    mkdirSync(join(repo, '.git'), { recursive: true });
    mkdirSync(sub, { recursive: true });
    skill(join(root, '.claude', 'skills'), 'outside', '---\ndescription: above the repo\n---\nX');
    skill(join(repo, '.claude', 'skills'), 'deploy', '---\ndescription: top\n---\nTOP');
    skill(join(sub, '.claude', 'skills'), 'deploy', '---\ndescription: nearest\n---\nNEAR');
    skill(join(home(), '.claude', 'skills'), 'mine', '---\nname: mine-alias\ndescription: personal\n---\nME');
    const all = discoverSkills({ cwd: sub, env });
    expect(all.map((s) => [s.name, s.source, s.description, s.shadowedBy !== null])).toEqual([
      ['mine', 'personal', 'personal', false],
      ['deploy', 'project', 'nearest', false],
      ['deploy', 'project', 'top', true],
    ]);
    // The frontmatter name is taken too, as claude takes it.
    expect(resolveSkill('mine-alias', { cwd: sub, env }).skill.name).toBe('mine');
    expect(resolveSkill('deploy', { cwd: sub, env }).skill.description).toBe('nearest');
  });

  it('a skill without frontmatter is still a skill; a directory without SKILL.md is not', () => {
    const dir = join(root, 'p', '.claude', 'skills');
    skill(dir, 'plain', 'Just text, no frontmatter.');
    mkdirSync(join(dir, 'empty'), { recursive: true });
    expect(discoverSkills({ cwd: join(root, 'p'), env }).map((s) => s.name)).toEqual(['plain']);
  });

  it('plugins: enabled ones only, named <plugin>:<skill>; manifest skills entries; another project’s install left out', () => {
    const cfg = join(home(), '.claude');
    const plug = (name: string, manifest: object = {}): string => {
      const r = join(root, 'plugins', name);
      mkdirSync(join(r, '.claude-plugin'), { recursive: true });
      writeFileSync(join(r, '.claude-plugin', 'plugin.json'), JSON.stringify({ name, ...manifest }));
      return r;
    };
    const a = plug('alpha', { skills: ['./extra/solo'] });
    skill(join(a, 'skills'), 'fmt', '---\ndescription: alpha fmt\n---\nA');
    skill(join(a, 'extra'), 'solo', '---\ndescription: one listed skill\n---\nS');
    const b = plug('beta');
    skill(join(b, 'skills'), 'fmt', '---\ndescription: beta fmt\n---\nB');
    const c = plug('gamma');
    skill(join(c, 'skills'), 'fmt', 'C');
    const d = plug('delta');
    skill(join(d, 'skills'), 'only', 'D');
    mkdirSync(join(cfg, 'plugins'), { recursive: true });
    writeFileSync(
      join(cfg, 'plugins', 'installed_plugins.json'),
      JSON.stringify({
        version: 2,
        plugins: {
          'alpha@m': [{ scope: 'user', installPath: a }],
          'beta@m': [{ scope: 'user', installPath: b }],
          'gamma@m': [{ scope: 'user', installPath: c }], // not enabled
          'delta@m': [{ scope: 'project', installPath: d, projectPath: join(root, 'elsewhere') }],
        },
      }),
    );
    writeFileSync(
      join(cfg, 'settings.json'),
      JSON.stringify({ enabledPlugins: { 'alpha@m': true, 'beta@m': true, 'gamma@m': true, 'delta@m': true } }),
    );
    const project = join(root, 'proj');
    mkdirSync(join(project, '.claude'), { recursive: true });
    // The project's local settings turn gamma off again.
    writeFileSync(
      join(project, '.claude', 'settings.local.json'),
      JSON.stringify({ enabledPlugins: { 'gamma@m': false } }),
    );
    const names = discoverSkills({ cwd: project, env }).map((s) => s.name);
    expect(names).toEqual(['alpha:fmt', 'alpha:solo', 'beta:fmt']);
    expect(resolveSkill('solo', { cwd: project, env }).skill.name).toBe('alpha:solo');
    expect(resolveSkill('beta:fmt', { cwd: project, env }).skill.description).toBe('beta fmt');
    let err: unknown;
    try {
      resolveSkill('fmt', { cwd: project, env });
    } catch (e) {
      err = e;
    }
    expect(isKlaudeError(err) && err.code).toBe('E_AMBIGUOUS_SKILL');
    expect((err as Error).message).toContain('alpha:fmt (plugin alpha: ');
    expect((err as Error).message).toContain('beta:fmt (plugin beta: ');
  });

  it('an unknown name is E_UNKNOWN_SKILL naming what there is', () => {
    skill(join(home(), '.claude', 'skills'), 'known', 'K');
    expect(() => resolveSkill('nope', { cwd: root, env })).toThrow(/no skill 'nope' here/);
    try {
      resolveSkill('nope', { cwd: root, env });
    } catch (e) {
      expect(isKlaudeError(e) && e.hint).toContain('known: known');
    }
  });
});

describe('arguments, as claude puts them in', () => {
  it('$ARGUMENTS, $ARGUMENTS[n], $n and named arguments; \\$ keeps a dollar', () => {
    expect(withArguments('Hi $ARGUMENTS!', 'Bob Smith')).toBe('Hi Bob Smith!');
    expect(withArguments('first $0, second $ARGUMENTS[1]', 'a "b c"')).toBe('first a, second b c');
    expect(withArguments('to $who about $what', 'Ann "the plan"', ['who', 'what'])).toBe('to Ann about the plan');
    expect(withArguments('costs \\$5 for $ARGUMENTS', 'x')).toBe('costs $5 for x');
  });

  it('no placeholder: ARGUMENTS: appended (none given: nothing)', () => {
    expect(withArguments('Do the thing.', 'now please')).toBe('Do the thing.\n\nARGUMENTS: now please');
    expect(withArguments('Do the thing.', '  ')).toBe('Do the thing.');
  });

  it('splits on spaces, quotes keeping them', () => {
    expect(splitArguments(`one "two three" 'four five' six`)).toEqual(['one', 'two three', 'four five', 'six']);
  });
});

describe('expansion', () => {
  it('names links and backticked paths, not URLs, anchors or absolute paths', () => {
    expect(
      namedPaths(
        'See [a](docs/a.md), [b](b.md#part "title"), [web](https://x.y), [top](#top), `scripts/run.sh`, `x.py`, `/etc/passwd`, `npm test`',
      ),
    ).toEqual(['docs/a.md', 'b.md', 'scripts/run.sh', 'x.py']);
  });

  it('includes the named files inside the skill, bounded; names the rest; never reads outside it', () => {
    writeFileSync(join(root, 'secret.txt'), 'SECRET');
    const dir = skill(
      join(root, 'p', '.claude', 'skills'),
      'big',
      '---\ndescription: d\n---\nRead [small](small.md), [large](large.md), [bin](data.bin), [up](../../../../secret.txt), [gone](gone.md). ${CLAUDE_SKILL_DIR}/x',
      { 'small.md': 'SMALL\n', 'large.md': 'L'.repeat(FILE_MAX + 1), 'data.bin': Buffer.from([1, 0, 2, 3]) },
    );
    const { skill: s } = resolveSkill('big', { cwd: join(root, 'p'), env });
    const text = expandSkill(s, 'go');
    expect(text).toContain(`<skill name="big" source="project" file="${join(dir, 'SKILL.md')}">`);
    expect(text).toContain(`Base directory for this skill: ${dir}`);
    expect(text).toContain(`${dir}/x\n\nARGUMENTS: go\n</skill>`);
    expect(text).toContain('<skill-file path="small.md">\nSMALL\n</skill-file>');
    expect(text).not.toContain('LLLL');
    expect(text).not.toContain('SECRET');
    expect(text).toContain(
      `Files of the skill not included here (read them from ${dir} if you need them): large.md (33 KiB: over the 32 KiB a file may take); data.bin (not text)`,
    );
    expect(text.length).toBeLessThan(EXPANSION_MAX);
  });

  it('stops adding files at the whole bound', () => {
    const files: Record<string, string> = {};
    const links: string[] = [];
    for (let i = 0; i < 6; i++) {
      files[`part${i}.md`] = `${i}`.repeat(FILE_MAX - 10);
      links.push(`[p${i}](part${i}.md)`);
    }
    skill(join(root, 'q', '.claude', 'skills'), 'many', `---\ndescription: d\n---\n${links.join(' ')}`, files);
    const text = expandSkill(resolveSkill('many', { cwd: join(root, 'q'), env }).skill, '');
    // The files within the bound; after them only the line naming those left out.
    expect(text.slice(0, text.lastIndexOf('</skill-file>')).length).toBeLessThanOrEqual(EXPANSION_MAX);
    expect((text.match(/<skill-file /g) ?? []).length).toBe(3);
    expect(text).toContain('part3.md (32 KiB: over what is left of the 128 KiB)');
  });
});

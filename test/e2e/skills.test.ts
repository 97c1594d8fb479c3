// Skills by name end to end: `klaude start <type> --skill <name>` (and `skill:` in a definition).
// The real claude (against the Messages-API stand-in) gets `/<name> <args>` and runs the skill
// itself (the request carries claude's own <command-name> expansion); the real codex (against the
// Responses-API stand-in) gets it expanded into its prompt with the files it names. Plugins are
// installed with the real `claude plugin` commands; a name two plugins have is refused, naming both.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { prepareCliHomes } from '../support/cli-homes.js';
import { startMockOpenAi, type MockOpenAi } from '../support/mock-openai.js';
import { runProcess } from '../support/run-process.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({ responder: (r) => ({ text: `Did: ${r.prompt.slice(0, 30)}` }) });
let home: AgentHome;
let openai: MockOpenAi;

function skill(dir: string, name: string, frontmatter: string, body: string, files: Record<string, string> = {}): void {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'SKILL.md'), `---\n${frontmatter}\n---\n${body}\n`);
  for (const [f, text] of Object.entries(files)) writeFileSync(join(dir, name, f), text);
}

/** A directory marketplace with two plugins that both have a `lint` skill, installed by claude itself. */
async function installPlugins(h: AgentHome): Promise<void> {
  const mk = join(h.root, 'marketplace');
  mkdirSync(join(mk, '.claude-plugin'), { recursive: true });
  const plugins = ['style', 'safety'];
  writeFileSync(
    join(mk, '.claude-plugin', 'marketplace.json'),
    JSON.stringify({
      name: 'local',
      owner: { name: 'me' },
      plugins: plugins.map((p) => ({ name: p, source: `./${p}` })),
    }),
  );
  for (const p of plugins) {
    mkdirSync(join(mk, p, '.claude-plugin'), { recursive: true });
    writeFileSync(join(mk, p, '.claude-plugin', 'plugin.json'), JSON.stringify({ name: p, version: '1.0.0' }));
    skill(
      join(mk, p, 'skills'),
      'lint',
      `name: lint\ndescription: ${p} lint`,
      `${p.toUpperCase()}-LINT-MARKER $ARGUMENTS`,
    );
  }
  for (const args of [
    ['plugin', 'marketplace', 'add', mk],
    ...plugins.map((p) => ['plugin', 'install', `${p}@local`]),
  ]) {
    const r = await runProcess(CLAUDE_BIN, args, { env: h.env, cwd: h.projectDir, timeoutMs: 60_000 });
    expect(r.code, `claude ${args.join(' ')}: ${r.stdout}${r.stderr}`).toBe(0);
  }
}

beforeAll(async () => {
  openai = await startMockOpenAi({ responder: () => ({ text: 'Done with the skill.' }) });
  home = fx.home({ timeoutMs: 120_000 });
  prepareCliHomes(home, { openai });
  const project = join(home.projectDir, '.claude', 'skills');
  skill(
    project,
    'greet',
    'name: greet\ndescription: Greets someone warmly',
    'Say hello to $ARGUMENTS with PROJECT-SKILL-MARKER.\nUse the words in [the reference](reference.md) and `notes/tone.md`.',
    { 'reference.md': 'REFERENCE CONTENT\n' },
  );
  mkdirSync(join(project, 'greet', 'notes'));
  writeFileSync(join(project, 'greet', 'notes', 'tone.md'), 'TONE: cheerful\n');
  skill(project, 'shared', 'description: project copy', 'PROJECT-SHARED');
  const personal = join(home.home, '.claude', 'skills');
  skill(personal, 'shared', 'description: personal copy', 'PERSONAL-SHARED $ARGUMENTS');
  mkdirSync(join(home.projectDir, '.claude', 'agents'), { recursive: true });
  writeFileSync(
    join(home.projectDir, '.claude', 'agents', 'greeter.md'),
    '---\nname: greeter\ndescription: greets\nskill: greet\n---\nBe brief.\n',
  );
  await installPlugins(home);
});

afterAll(async () => {
  await openai?.close();
});

const idFrom = (stdout: string): string => /started (\w{8})/.exec(stdout)![1]!;

describe('klaude start --skill', () => {
  it('a claude agent gets /greet and claude runs the project skill itself', async () => {
    const r = await home.k(['start', 'general', '--skill', 'greet', 'Bob']);
    expect(r.code, r.stderr).toBe(0);
    const req = fx.mock.mainRequests().find((x) => x.prompt.includes('<command-name>/greet</command-name>'))!;
    expect(req).toBeDefined();
    expect(req.prompt).toContain('<command-args>Bob</command-args>');
    // claude's own expansion: the skill's directory and its body with the argument in it.
    expect(req.prompt).toContain(
      `Base directory for this skill: ${join(home.projectDir, '.claude', 'skills', 'greet')}`,
    );
    expect(req.prompt).toContain('Say hello to Bob with PROJECT-SKILL-MARKER.');
    const s = await home.k(['sessions']);
    expect(s.stdout).toMatch(new RegExp(`${idFrom(r.stdout)}\\s+done\\s+general\\s+claude.*/greet Bob`));
  });

  it('a codex agent gets the skill expanded: SKILL.md with the argument, and the files it names', async () => {
    const r = await home.k(['start', 'general', '--skill', 'greet', 'Bob', '--runtime', 'codex']);
    expect(r.code, r.stderr).toBe(0);
    const req = openai.mainRequests().find((x) => x.prompt.includes('<skill name="greet"'))!;
    expect(req).toBeDefined();
    const dir = join(home.projectDir, '.claude', 'skills', 'greet');
    expect(req.prompt).toContain(`<skill name="greet" source="project" file="${join(dir, 'SKILL.md')}">`);
    expect(req.prompt).toContain(`Base directory for this skill: ${dir}`);
    expect(req.prompt).toContain('Say hello to Bob with PROJECT-SKILL-MARKER.');
    expect(req.prompt).toContain('<skill-file path="reference.md">\nREFERENCE CONTENT\n</skill-file>');
    expect(req.prompt).toContain('<skill-file path="notes/tone.md">\nTONE: cheerful\n</skill-file>');
    expect(req.prompt).not.toContain('<command-name>');
  });

  it('`skill:` in a definition: its agents run the skill, the prompt being its arguments', async () => {
    const r = await home.k(['start', 'greeter', 'Ann']);
    expect(r.code, r.stderr).toBe(0);
    const req = fx.mock.mainRequests().find((x) => x.prompt.includes('<command-args>Ann</command-args>'))!;
    expect(req.prompt).toContain('Say hello to Ann with PROJECT-SKILL-MARKER.');
  });

  it('a personal skill wins over the project one of the same name, as in claude, and says so', async () => {
    const r = await home.k(['start', 'general', '--skill', 'shared', 'x1', '--runtime', 'codex']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(
      'klaude: note: skill shared: the personal one (~/.claude/skills/shared/SKILL.md) is used over the project one',
    );
    const req = openai.mainRequests().find((x) => x.prompt.includes('<skill name="shared"'))!;
    expect(req.prompt).toContain('PERSONAL-SHARED x1');
    expect(req.prompt).not.toContain('PROJECT-SHARED');
  });

  it('a name two plugins have is refused naming both; the full name runs that plugin’s skill in claude', async () => {
    const amb = await home.k(['start', 'general', '--skill', 'lint', 'src']);
    expect(amb.code).toBe(1);
    expect(amb.stderr).toMatch(
      /^klaude: more than one plugin has a skill 'lint': (safety|style):lint \(plugin \w+: .*\), (safety|style):lint .*\[E_AMBIGUOUS_SKILL\] — hint: name one: --skill \w+:lint\n$/,
    );
    const r = await home.k(['start', 'general', '--skill', 'style:lint', 'src']);
    expect(r.code, r.stderr).toBe(0);
    const req = fx.mock.mainRequests().find((x) => x.prompt.includes('<command-name>/style:lint</command-name>'))!;
    expect(req.prompt).toContain('STYLE-LINT-MARKER src');
  });

  it('an unknown skill is refused, naming the skills there are', async () => {
    const r = await home.k(['start', 'general', '--skill', 'gret', 'x']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /^klaude: no skill 'gret' here \[E_UNKNOWN_SKILL\] — hint: known: .*greet.*\(klaude agents --skills lists them\)\n$/,
    );
  });
});

describe('klaude agents --skills', () => {
  it('lists every skill with where it comes from, the shadowed one marked; --json too', async () => {
    const r = await home.k(['agents', '--skills'], { env: { COLUMNS: '250' } });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^SKILL\s+SOURCE\s+DESCRIPTION\s+FILE\n/);
    expect(r.stdout).toMatch(/shared\s+personal\s+personal copy\s+~\/\.claude\/skills\/shared\/SKILL\.md/);
    expect(r.stdout).toMatch(
      /greet\s+project\s+Greets someone warmly\s+\/.*\/project\/\.claude\/skills\/greet\/SKILL\.md/,
    );
    expect(r.stdout).toMatch(/shared\s+project\s+\(not used: personal wins\) project copy/);
    expect(r.stdout).toMatch(/style:lint\s+plugin style\s+style lint/);
    expect(r.stdout).toMatch(/safety:lint\s+plugin safety\s+safety lint/);
    const j = JSON.parse((await home.k(['agents', '--skills', '--json'])).stdout) as { skills: any[] };
    expect(j.skills.find((s) => s.name === 'greet')).toMatchObject({
      source: 'project',
      description: 'Greets someone warmly',
      shadowedBy: null,
    });
    expect(j.skills.filter((s) => s.name === 'shared').map((s) => [s.source, s.shadowedBy !== null])).toEqual([
      ['personal', false],
      ['project', true],
    ]);
  });
});

describe('a worktree agent', () => {
  it('gets the skill expanded when the worktree lacks it (not committed): claude would not find it there', async () => {
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], {
        cwd: home.projectDir,
        env: home.env,
        encoding: 'utf8',
      });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(home.projectDir, 'base.txt'), 'base\n');
    git('add', 'base.txt');
    git('commit', '-q', '-m', 'base');
    const r = await home.k(['start', 'general', '--skill', 'greet', 'Wendy', '--worktree']);
    expect(r.code, r.stderr).toBe(0);
    const req = fx.mock.mainRequests().find((x) => x.prompt.includes('Say hello to Wendy'))!;
    expect(req.prompt).toContain('<skill name="greet" source="project"');
    expect(req.prompt).not.toContain('<command-name>');
  });
});

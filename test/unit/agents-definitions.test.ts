// Agent definition files: parsing, strict field checks, precedence, the built-in type.
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  agentOutputDir,
  clearAgentDefinitionCache,
  isAgentAllowed,
  loadAgentDefinitions,
  resolveAgentType,
  type AgentDefinition,
} from '../../src/agent-types/index.js';
import { KlaudeError } from '../../src/lib/errors.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let t: TempHome;
beforeEach(() => {
  clearAgentDefinitionCache();
  t = makeTempHome({ prefix: 'klaude-agents-' });
});
afterEach(() => t.cleanup());

const projectAgents = (): string => join(t.projectDir, '.claude', 'agents');
const userAgents = (): string => join(t.home, '.claude', 'agents');

function write(dir: string, file: string, text: string): string {
  mkdirSync(dir, { recursive: true });
  const p = join(dir, file);
  writeFileSync(p, text);
  return p;
}

const load = () => loadAgentDefinitions({ cwd: t.projectDir, env: t.env });
const find = (name: string): AgentDefinition | undefined => load().agents.find((a) => a.name === name);

describe('agent definition files', () => {
  it('a long-lived process sees a type added, edited or removed (looked at again after 2 s)', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      const names = () => load().agents.map((a) => `${a.name}:${a.description}`);
      expect(names()).toEqual([expect.stringMatching(/^general:/)]);
      const file = write(projectAgents(), 'later.md', '---\nname: later\ndescription: one\n---\nbody\n');
      vi.setSystemTime(Date.now() + 2500);
      expect(names()).toContain('later:one');
      writeFileSync(file, '---\nname: later\ndescription: a longer one\n---\nbody\n');
      vi.setSystemTime(Date.now() + 2500);
      expect(names()).toContain('later:a longer one');
      rmSync(file);
      vi.setSystemTime(Date.now() + 2500);
      expect(names()).not.toContain('later:a longer one');
    } finally {
      vi.useRealTimers();
    }
  });

  it('reads every field of a good file, the body as instructions', () => {
    const p = write(
      projectAgents(),
      'reviewer.md',
      [
        '---',
        'name: code-reviewer',
        'description: Reviews diffs for bugs',
        'model: sonnet',
        'reasoningEffort: high',
        'runtime: claude',
        'allowedAgents: [general, fixer]',
        'mcpServers: [github]',
        'inheritProjectMcps: false',
        'inheritParentMcps: true',
        'outputDir: plans/reviews/',
        'color: cyan',
        'tools: Read, Grep, Bash(git diff:*)',
        'disallowedTools: [Write]',
        'permissionMode: plan',
        '---',
        '',
        'You review code.',
        '',
        '- Be brief.',
        '',
      ].join('\n'),
    );
    const { agents, problems } = load();
    expect(problems).toEqual([]);
    expect(agents.find((a) => a.name === 'code-reviewer')).toEqual({
      name: 'code-reviewer',
      source: 'project',
      path: p,
      description: 'Reviews diffs for bugs',
      model: 'sonnet',
      reasoningEffort: 'high',
      runtime: 'claude',
      allowedAgents: ['general', 'fixer'],
      mcpServers: { pick: ['github'], inline: {} },
      inheritProjectMcps: false,
      inheritParentMcps: true,
      outputDir: 'plans/reviews',
      color: 'cyan',
      tools: ['Read', 'Grep', 'Bash(git diff:*)'],
      disallowedTools: ['Write'],
      permissionMode: 'plan',
      instructions: 'You review code.\n\n- Be brief.',
    });
  });

  it('defaults: name from the file name, inheritProjectMcps true, inheritParentMcps false', () => {
    write(projectAgents(), 'helper.md', '---\ndescription: helps\n---\nHelp.\n');
    expect(find('helper')).toMatchObject({
      name: 'helper',
      inheritProjectMcps: true,
      inheritParentMcps: false,
      instructions: 'Help.',
    });
    expect(find('helper')).not.toHaveProperty('tools');
    expect(find('helper')).not.toHaveProperty('model');
  });

  it.each([
    ['tools as a comma string', 'tools: Read, Grep,Glob', ['Read', 'Grep', 'Glob']],
    ['tools as a list', 'tools: [Read, Grep]', ['Read', 'Grep']],
    ['tools as a block list with a comma item', 'tools:\n  - Read\n  - Grep, Glob', ['Read', 'Grep', 'Glob']],
    ['tools: [] means no tools', 'tools: []', []],
    ['commas inside a rule stay', 'tools: "Bash(git add, commit), Read"', ['Bash(git add, commit)', 'Read']],
    ['a rule as a list item', 'tools: [Read, "Bash(npm test:*)", " Grep "]', ['Read', 'Bash(npm test:*)', 'Grep']],
    ['empty items dropped', 'tools: "Read,, Grep, "', ['Read', 'Grep']],
  ])('%s', (_label, line, expected) => {
    write(projectAgents(), 'x.md', `---\n${line}\n---\n`);
    expect(load().problems).toEqual([]);
    expect(find('x')?.tools).toEqual(expected);
  });

  it.each([
    ['budgetUsd as a number', 'budgetUsd: 2.5', 2.5],
    ['budgetUsd as dollars', 'budgetUsd: "$0.50"', 0.5],
  ])('%s', (_label, line, expected) => {
    write(projectAgents(), 'x.md', `---\n${line}\n---\n`);
    expect(load().problems).toEqual([]);
    expect(find('x')?.budgetUsd).toBe(expected);
  });

  it.each([
    [
      'mcpServers as a map adds inline servers',
      'mcpServers:\n  db: {command: db-mcp, args: [--ro]}',
      { pick: null, inline: { db: { command: 'db-mcp', args: ['--ro'] } } },
    ],
    [
      'mcpServers as a mixed list',
      'mcpServers:\n  - github\n  - web: {type: http, url: "http://x/mcp"}',
      { pick: ['github'], inline: { web: { type: 'http', url: 'http://x/mcp' } } },
    ],
    ['mcpServers: [] picks none', 'mcpServers: []', { pick: [], inline: {} }],
  ])('%s', (_label, yaml, expected) => {
    write(projectAgents(), 'x.md', `---\n${yaml}\n---\n`);
    expect(load().problems).toEqual([]);
    expect(find('x')?.mcpServers).toEqual(expected);
  });

  // [label, frontmatter lines (file line 2 on), expected message part, expected line]
  const bad: [string, string, string | RegExp, number | undefined][] = [
    ['model not a string', 'name: a\nmodel: 42', "field 'model': must be a string, got 42", 3],
    ['empty description', 'description:', "field 'description': must be a string, got nothing", 2],
    [
      'reasoningEffort outside the set',
      'reasoningEffort: extreme',
      `field 'reasoningEffort': must be one of low, medium, high; got "extreme"`,
      2,
    ],
    [
      'unknown runtime',
      'runtime: copilot',
      /field 'runtime': must be one of claude, codex, gemini, cursor, opencode; got "copilot"/,
      2,
    ],
    [
      'boolean as a string',
      'inheritProjectMcps: "yes"',
      `field 'inheritProjectMcps': must be true or false, got "yes"`,
      2,
    ],
    [
      'YAML 1.1 yes is not a boolean',
      'inheritParentMcps: yes',
      `field 'inheritParentMcps': must be true or false, got "yes"`,
      2,
    ],
    [
      'allowedAgents not a list',
      'allowedAgents: general',
      `field 'allowedAgents': must be a list of strings, got "general"`,
      2,
    ],
    [
      'allowedAgents item not a string',
      'allowedAgents: [general, 3]',
      "field 'allowedAgents': item 2 must be a non-empty string, got 3",
      2,
    ],
    ['tools a number', 'tools: 5', "field 'tools': must be a comma-separated string or a list of tool names, got 5", 2],
    ['tools item a mapping', 'tools: [Read, {a: 1}]', "field 'tools': item 2 must be a tool name, got a mapping", 2],
    ['mcpServers a string', 'mcpServers: github', /field 'mcpServers': must be a list of server names/, 2],
    [
      'inline server without command or url',
      'mcpServers:\n  db: {args: [x]}',
      "field 'mcpServers': server 'db' needs a 'command' (stdio) or a 'url' (http/sse)",
      2,
    ],
    ['outputDir absolute', 'outputDir: /tmp/out', "field 'outputDir': must be a relative path (under .claude/)", 2],
    [
      'outputDir escaping .claude',
      'outputDir: ../../etc',
      "field 'outputDir': must name a directory inside .claude/",
      2,
    ],
    ['name with a space', 'name: my agent', `field 'name': "my agent" is not usable as an agent type`, 2],
    ['budgetUsd zero', 'budgetUsd: 0', "field 'budgetUsd': must be an amount in USD more than 0, got 0", 2],
    ['budgetUsd a word', 'budgetUsd: lots', `field 'budgetUsd': must be an amount in USD more than 0, got "lots"`, 2],
    ['permissionMode unknown', 'permissionMode: yolo', "field 'permissionMode': must be one of", 2],
    ['bad YAML names its line', 'name: a\ndescription: ok\nmodel: [sonnet', /^invalid YAML: Flow sequence/, 4],
    ['duplicate key', 'model: a\nmodel: b', /^invalid YAML: Map keys must be unique/, 3],
    ['frontmatter a list', '- a\n- b', 'frontmatter must be a mapping of fields', 2],
  ];
  it.each(bad)('rejects %s, naming the file, field and line', (_label, fm, message, line) => {
    const p = write(projectAgents(), 'bad.md', `---\n${fm}\n---\nbody\n`);
    write(projectAgents(), 'good.md', '---\ndescription: fine\n---\n');
    const { agents, problems } = load();
    expect(problems).toHaveLength(1);
    const [problem] = problems;
    expect(problem!.path).toBe(p);
    expect(problem!.severity).toBe('error');
    expect(problem!.message).toMatch(typeof message === 'string' ? new RegExp(escape(message)) : message);
    expect(problem!.line).toBe(line);
    // The good file is not hidden by the bad one.
    expect(agents.map((a) => a.name)).toEqual(['general', 'good']);
  });

  it('rejects a file without frontmatter and one whose frontmatter is not closed', () => {
    write(projectAgents(), 'plain.md', '# Just markdown\n\nno frontmatter\n');
    write(projectAgents(), 'open.md', '---\nname: open\nno closing fence\n');
    const { problems } = load();
    expect(problems.map((p) => [p.name, p.message, p.line])).toEqual([
      ['open', "frontmatter is not closed: no second '---' line", 1],
      ['plain', "no YAML frontmatter: the file must start with a '---' line", 1],
    ]);
  });

  it('accepts CRLF line endings, a BOM and empty frontmatter', () => {
    write(projectAgents(), 'crlf.md', '\uFEFF---\r\nmodel: haiku\r\n---\r\nLine one\r\n');
    write(projectAgents(), 'empty.md', '---\n---\n');
    expect(load().problems).toEqual([]);
    expect(find('crlf')).toMatchObject({ model: 'haiku', instructions: 'Line one' });
    expect(find('empty')).toMatchObject({ instructions: '' });
  });

  it('warns about unknown fields (with a suggestion) but loads the file; Claude Code fields are quiet', () => {
    const p = write(projectAgents(), 'typo.md', '---\nreasoningEfort: high\nmaxTurns: 3\nskills: [a]\n---\n');
    const { agents, problems } = load();
    expect(agents.map((a) => a.name)).toContain('typo');
    expect(problems).toEqual([
      {
        path: p,
        line: 2,
        message: "unknown field 'reasoningEfort' (ignored; did you mean 'reasoningEffort'?)",
        severity: 'warning',
        source: 'project',
        name: 'typo',
      },
    ]);
  });

  it('reports two files of one directory defining the same type', () => {
    write(projectAgents(), 'a.md', '---\nname: dup\n---\n');
    const second = write(projectAgents(), 'b.md', '---\nname: dup\n---\n');
    const { agents, problems } = load();
    expect(agents.find((a) => a.name === 'dup')?.path).toBe(join(projectAgents(), 'a.md'));
    expect(problems).toMatchObject([
      { path: second, line: 2, message: expect.stringContaining("agent type 'dup' is already defined by") },
    ]);
  });

  it('finds files in subdirectories', () => {
    write(join(projectAgents(), 'team'), 'nested.md', '---\ndescription: deep\n---\n');
    expect(find('nested')?.description).toBe('deep');
  });

  it('follows symlinked files and directories, walks a link back up once, and skips what is not a .md file', () => {
    const elsewhere = join(t.root, 'shared-agents');
    write(elsewhere, 'linked-dir.md', '---\ndescription: via a linked directory\n---\n');
    const target = write(join(t.root, 'one-file'), 'target.md', '---\nname: linked-file\n---\n');
    write(projectAgents(), 'a.md', '---\nname: a\n---\n');
    write(projectAgents(), 'notes.txt', 'not an agent');
    mkdirSync(join(projectAgents(), 'dir.md'));
    symlinkSync(elsewhere, join(projectAgents(), 'shared'));
    symlinkSync(target, join(projectAgents(), 'file.md'));
    symlinkSync(projectAgents(), join(projectAgents(), 'loop'));
    symlinkSync(join(t.root, 'missing'), join(projectAgents(), 'dangling.md'));
    const { agents, problems } = load();
    expect(problems).toEqual([]);
    expect(agents.filter((a) => a.source === 'project').map((a) => [a.name, a.path])).toEqual([
      ['a', join(projectAgents(), 'a.md')],
      ['linked-dir', join(projectAgents(), 'shared', 'linked-dir.md')],
      ['linked-file', join(projectAgents(), 'file.md')],
    ]);
  });
});

describe('precedence and lookup', () => {
  it('project over user over built-in; user files are read from HOME in env', () => {
    write(userAgents(), 'shared.md', '---\ndescription: from user\n---\n');
    write(userAgents(), 'mine.md', '---\ndescription: only user\n---\n');
    write(projectAgents(), 'shared.md', '---\ndescription: from project\n---\n');
    const { agents } = load();
    expect(agents.map((a) => [a.name, a.source, a.description])).toEqual([
      ['general', 'builtin', 'plain Claude Code agent (no extra instructions)'],
      ['mine', 'user', 'only user'],
      ['shared', 'project', 'from project'],
    ]);
  });

  it('general is built in, and a file may override it', () => {
    expect(resolveAgentType('general', { cwd: t.projectDir, env: t.env })).toMatchObject({
      source: 'builtin',
      path: null,
      instructions: '',
    });
    clearAgentDefinitionCache();
    write(projectAgents(), 'general.md', '---\nmodel: opus\n---\nHouse rules.\n');
    expect(resolveAgentType('general', { cwd: t.projectDir, env: t.env })).toMatchObject({
      source: 'project',
      model: 'opus',
      instructions: 'House rules.',
    });
  });

  it('an unknown type is E_USAGE with the available types and where to put a file', () => {
    write(projectAgents(), 'known.md', '---\n---\n');
    const err = catchError(() => resolveAgentType('nope', { cwd: t.projectDir, env: t.env }));
    expect(err.code).toBe('E_USAGE');
    expect(err.message).toBe("unknown agent type 'nope'");
    expect(err.hint).toContain('available: general, known');
    expect(err.hint).toContain(join(t.projectDir, '.claude', 'agents', 'nope.md'));
    expect(err.hint).toContain('~/.claude/agents/nope.md');
  });

  it('a broken file for the type is E_AGENT_DEFINITION, not a silent fall-back to the user file', () => {
    write(userAgents(), 'rev.md', '---\ndescription: user one\n---\n');
    const p = write(projectAgents(), 'rev.md', '---\nmodel: 7\n---\n');
    const err = catchError(() => resolveAgentType('rev', { cwd: t.projectDir, env: t.env }));
    expect(err.code).toBe('E_AGENT_DEFINITION');
    expect(err.message).toBe(`bad agent file for type 'rev': ${p}:2: field 'model': must be a string, got 7`);
  });

  it('a broken user file does not block a good project file of the same type', () => {
    write(userAgents(), 'rev.md', '---\nmodel: 7\n---\n');
    write(projectAgents(), 'rev.md', '---\nmodel: sonnet\n---\n');
    expect(resolveAgentType('rev', { cwd: t.projectDir, env: t.env }).model).toBe('sonnet');
  });

  it('caches per process until cleared', () => {
    write(projectAgents(), 'one.md', '---\n---\n');
    expect(load().agents).toHaveLength(2);
    write(projectAgents(), 'two.md', '---\n---\n');
    expect(load().agents).toHaveLength(2);
    clearAgentDefinitionCache();
    expect(load().agents).toHaveLength(3);
  });

  it('isAgentAllowed and agentOutputDir', () => {
    write(projectAgents(), 'boss.md', '---\nallowedAgents: [worker]\noutputDir: plans\n---\n');
    const boss = find('boss')!;
    expect(isAgentAllowed(boss, 'worker')).toBe(true);
    expect(isAgentAllowed(boss, 'general')).toBe(false);
    expect(isAgentAllowed(find('general')!, 'anything')).toBe(true);
    expect(agentOutputDir(boss, t.projectDir)).toBe(join(t.projectDir, '.claude', 'plans'));
    expect(agentOutputDir(find('general')!, t.projectDir)).toBeNull();
  });
});

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function catchError(fn: () => unknown): KlaudeError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(KlaudeError);
    return e as KlaudeError;
  }
  throw new Error('expected an error');
}

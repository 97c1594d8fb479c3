// The claude flags built from an agent definition (their effect on the real CLI: integration/agents-claude.test.ts).
import { describe, expect, it } from 'vitest';
import { agentClaudeArgs, builtinGeneral, type AgentDefinition } from '../../src/agent-types/index.js';

const def = (over: Partial<AgentDefinition>): AgentDefinition => ({
  ...builtinGeneral(),
  name: 'x',
  source: 'project',
  path: '/p/x.md',
  ...over,
});

describe('agentClaudeArgs', () => {
  it.each<[string, Partial<AgentDefinition>, string[]]>([
    ['the built-in general adds nothing', {}, []],
    ['model and effort', { model: 'sonnet', reasoningEffort: 'low' }, ['--model=sonnet', '--effort=low']],
    ["model 'inherit' means no --model", { model: 'inherit' }, []],
    [
      'instructions go to --append-system-prompt, one value even if it starts with a dash',
      { instructions: '- be brief\n- be kind' },
      ['--append-system-prompt=- be brief\n- be kind'],
    ],
    ['tools restrict the built-in set', { tools: ['Read', 'Grep'] }, ['--tools=Read,Grep']],
    ['tools: [] gives no built-in tools', { tools: [] }, ['--tools=']],
    [
      'rules and MCP tools in tools are also pre-approved',
      { tools: ['Read', 'Bash(git diff:*)', 'Bash(git log:*)', 'mcp__gh__create_issue'] },
      ['--tools=Read,Bash', '--allowedTools=Bash(git diff:*),Bash(git log:*),mcp__gh__create_issue'],
    ],
    ['disallowedTools', { disallowedTools: ['Write', 'mcp__gh'] }, ['--disallowedTools=Write,mcp__gh']],
  ])('%s', (_label, over, expected) => {
    expect(agentClaudeArgs(def(over), null)).toEqual(expected);
  });

  it('passes the MCP config and strictness', () => {
    expect(agentClaudeArgs(def({}), { mcpConfigJson: '{"mcpServers":{}}', strict: true })).toEqual([
      '--mcp-config={"mcpServers":{}}',
      '--strict-mcp-config',
    ]);
    expect(agentClaudeArgs(def({}), { mcpConfigJson: '{"mcpServers":{"a":{"url":"u"}}}', strict: false })).toEqual([
      '--mcp-config={"mcpServers":{"a":{"url":"u"}}}',
    ]);
  });

  it('options: a model override and extra system-prompt text after the instructions', () => {
    const args = agentClaudeArgs(def({ model: 'sonnet', instructions: 'Review.' }), null, {
      model: 'opus',
      appendSystemPrompt: 'Post [UPDATE] lines.',
    });
    expect(args).toEqual(['--model=opus', '--append-system-prompt=Review.\n\nPost [UPDATE] lines.']);
    expect(agentClaudeArgs(def({}), null, { appendSystemPrompt: '  ' })).toEqual([]);
  });

  it('every value flag uses the --flag=value form (variadic flags would swallow a following prompt)', () => {
    const all = agentClaudeArgs(
      def({
        model: 'm',
        reasoningEffort: 'high',
        instructions: 'i',
        tools: ['Read', 'mcp__a__b'],
        disallowedTools: ['Write'],
      }),
      { mcpConfigJson: '{}', strict: true },
    );
    expect(all.every((a) => a === '--strict-mcp-config' || /^--[A-Za-z-]+=/.test(a))).toBe(true);
    expect(all).toHaveLength(8);
  });
});

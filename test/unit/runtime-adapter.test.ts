// The adapter seam: the claude command line, stdin encodings, tool summaries, share blocks, socket paths.
import { describe, expect, it } from 'vitest';
import { getAdapter } from '../../src/adapters/registry.js';
import { buildClaudeCommand, claudeAdapter } from '../../src/adapters/claude/adapter.js';
import { agentSocketPath } from '../../src/control/agent-socket.js';
import { formatShareBlock, transcriptTurns } from '../../src/agent-ops/share.js';
import { clip, toolSummary } from '../../src/core/tool-summary.js';
import { KlaudeError } from '../../src/lib/errors.js';

const base = {
  binary: '/bin/claude',
  cwd: '/p',
  nativeSessionId: '11111111-2222-3333-4444-555555555555',
  resume: false,
};

describe('claude adapter: command line', () => {
  it('starts a new session with the id chosen up front, stream-json both ways', () => {
    const cmd = buildClaudeCommand({ ...base, permissionMode: 'acceptEdits' });
    expect(cmd.file).toBe('/bin/claude');
    expect(cmd.stdin).toBe('stream-json');
    expect(cmd.args).toEqual([
      '-p',
      '--input-format',
      'stream-json',
      '--output-format',
      'stream-json',
      '--verbose',
      '--include-partial-messages',
      '--session-id',
      base.nativeSessionId,
      '--permission-mode',
      'acceptEdits',
      '--strict-mcp-config',
    ]);
  });

  it('resumes in place, and passes model, instructions, MCP config (strict) and tool rules (last: variadic)', () => {
    const cmd = buildClaudeCommand({
      ...base,
      resume: true,
      model: 'sonnet',
      appendSystemPrompt: 'Be brief.',
      mcpConfig: '{"mcpServers":{}}',
      allowedTools: ['Bash(npm test:*)', 'Read'],
      effort: 'high',
    });
    expect(cmd.args.slice(7)).toEqual([
      '--resume',
      base.nativeSessionId,
      '--model',
      'sonnet',
      '--effort',
      'high',
      '--append-system-prompt',
      'Be brief.',
      '--mcp-config={"mcpServers":{}}',
      '--strict-mcp-config',
      '--allowedTools',
      'Bash(npm test:*)',
      'Read',
    ]);
  });

  it('limits built-in tools; MCP is strict even when asked otherwise or given no config', () => {
    const cmd = buildClaudeCommand({
      ...base,
      tools: ['Read', 'Grep'],
      disallowedTools: ['WebFetch'],
      mcpConfig: '{"mcpServers":{"x":{}}}',
      mcpStrict: false,
    });
    expect(cmd.args.slice(9)).toEqual([
      '--mcp-config={"mcpServers":{"x":{}}}',
      '--strict-mcp-config',
      '--tools=Read,Grep',
      '--disallowedTools=WebFetch',
    ]);
    // no config at all: claude still loads no MCP server of its own (a project's .mcp.json included)
    expect(buildClaudeCommand(base).args).toContain('--strict-mcp-config');
    expect(buildClaudeCommand(base).args.some((a) => a.startsWith('--mcp-config'))).toBe(false);
    expect(buildClaudeCommand({ ...base, tools: [] }).args.at(-1)).toBe('--tools=');
  });

  it('drops the variables Claude sets for its Bash tool, so a nested agent is a session of its own', () => {
    const { env } = buildClaudeCommand(base);
    for (const k of ['CLAUDECODE', 'CLAUDE_CODE_SESSION_ID', 'CLAUDE_CODE_CHILD_SESSION', 'CLAUDE_CODE_ENTRYPOINT']) {
      expect(env).toHaveProperty(k, undefined);
    }
  });

  it('encodes messages and interrupts as one stream-json line each', () => {
    expect(JSON.parse(claudeAdapter.encodeMessage('hi\nthere'))).toEqual({
      type: 'user',
      message: { role: 'user', content: 'hi\nthere' },
      parent_tool_use_id: null,
    });
    const line = claudeAdapter.encodeInterrupt('r1')!;
    expect(line.endsWith('\n') && line.indexOf('\n') === line.length - 1).toBe(true);
    expect(JSON.parse(line)).toEqual({ type: 'control_request', request_id: 'r1', request: { subtype: 'interrupt' } });
  });

  it('picks fresh UUIDs and resumes interactively with --resume', () => {
    expect(claudeAdapter.newSessionId()).toMatch(/^[0-9a-f-]{36}$/);
    expect(claudeAdapter.newSessionId()).not.toBe(claudeAdapter.newSessionId());
    expect(claudeAdapter.interactiveResume('/bin/claude', 'abc')).toEqual({
      file: '/bin/claude',
      args: ['--resume', 'abc'],
    });
  });
});

describe('adapter registry', () => {
  it('returns the claude adapter', async () => {
    expect((await getAdapter('claude')).name).toBe('claude');
  });
  it('refuses an unknown runtime name', async () => {
    const err = await getAdapter('nope').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(KlaudeError);
    expect((err as KlaudeError).code).toBe('E_BAD_REQUEST');
  });
});

describe('tool summaries', () => {
  it.each([
    ['Bash', { command: 'npm test\n  --watch', description: 'x' }, 'npm test ⏎ --watch'],
    ['Read', { file_path: '/a/b.ts', limit: 10 }, '/a/b.ts'],
    ['Write', { file_path: '/a/c.ts', content: 'x' }, '/a/c.ts'],
    ['Edit', { file_path: '/a/d.ts', old_string: 'a', new_string: 'b' }, '/a/d.ts'],
    ['MultiEdit', { file_path: '/a/e.ts', edits: [] }, '/a/e.ts'],
    ['NotebookEdit', { notebook_path: '/a/n.ipynb', new_source: 'x' }, '/a/n.ipynb'],
    ['Grep', { pattern: 'TODO', path: 'src' }, 'TODO'],
    ['Glob', { pattern: '**/*.ts' }, '**/*.ts'],
    ['WebFetch', { url: 'https://example.com', prompt: 'summarise' }, 'https://example.com'],
    ['WebSearch', { query: 'vitest forks' }, 'vitest forks'],
    ['Task', { description: 'find config', prompt: 'long…', subagent_type: 'x' }, 'find config'],
    ['Agent', { description: 'plan it', prompt: 'p' }, 'plan it'],
    ['TodoWrite', { todos: [{}, {}] }, '2 todos'],
    ['mcp__github__create_issue', { title: 'Bug', body: 'b' }, 'Bug'],
    ['Whatever', { n: 1, name: 'first string' }, 'first string'],
    ['Nothing', { n: 1 }, ''],
  ])('%s', (name, input, expected) => {
    expect(toolSummary(name, input)).toBe(expected);
  });

  it('keeps summaries to one bounded line and clips long output with a count', () => {
    expect(toolSummary('Bash', { command: 'x'.repeat(500) })).toHaveLength(200);
    expect(clip('y'.repeat(2100))).toBe(`${'y'.repeat(2000)}… [100 more chars]`);
  });
});

describe('--share context', () => {
  const line = (o: unknown) => JSON.stringify(o);
  const transcript = [
    line({ type: 'queue-operation', operation: 'enqueue' }),
    line({
      type: 'user',
      message: { role: 'user', content: 'Please refactor the DB layer.<system-reminder>noise</system-reminder>' },
    }),
    line({ type: 'assistant', message: { content: [{ type: 'text', text: 'Looking at src/db.' }] } }),
    line({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 't', name: 'Read', input: {} }] } }),
    line({ type: 'user', message: { content: [{ type: 'tool_result', tool_use_id: 't', content: 'file body' }] } }),
    line({ type: 'assistant', message: { content: [{ type: 'text', text: 'It has three repos.' }] } }),
    line({ type: 'user', isMeta: true, message: { content: 'meta stuff' } }),
    'not json',
  ];

  it('keeps user and assistant text, joins one message, drops tools, hooks and meta lines', () => {
    expect(transcriptTurns(transcript)).toEqual([
      { role: 'user', text: 'Please refactor the DB layer.' },
      { role: 'assistant', text: 'Looking at src/db.\nIt has three repos.' },
    ]);
  });

  it('formats a bounded block, newest kept', () => {
    const block = formatShareBlock(transcriptTurns(transcript), 'session ABCD1234')!;
    expect(block).toMatch(/^<parent-context>/);
    expect(block).toContain('user: Please refactor the DB layer.');
    expect(block).toContain('session ABCD1234');
    expect(block).toMatch(/<\/parent-context>$/);
    const many = Array.from({ length: 40 }, (_, i) => ({
      role: 'user' as const,
      text: `message ${i} ${'z'.repeat(1900)}`,
    }));
    const big = formatShareBlock(many, 'x')!;
    expect(big.length).toBeLessThan(13_000);
    expect(big).toContain('message 39');
    expect(big).not.toContain('message 0 ');
    expect(formatShareBlock([], 'x')).toBeNull();
  });
});

describe('agent socket path', () => {
  it('lives in an `a/` subdirectory and stays under the socket path limit for long homes', () => {
    const short = agentSocketPath('/tmp/h', 'a'.repeat(24), '01ARZ3NDEKTSV4RRFFQ69G5FAV', {});
    expect(short).toBe(`/tmp/h/run/${'a'.repeat(24)}/a/01ARZ3NDEKTSV4RRFFQ69G5FAV.sock`);
    const long = agentSocketPath(`/tmp/${'h'.repeat(40)}`, 'a'.repeat(24), '01ARZ3NDEKTSV4RRFFQ69G5FAV', {});
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(103);
    expect(agentSocketPath(`/tmp/${'h'.repeat(40)}`, 'a'.repeat(24), '01ARZ3NDEKTSV4RRFFQ69G5FAV', {})).toBe(long);
  });
});

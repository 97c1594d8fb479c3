// An agent definition's claude flags, run through the real claude against the Messages-API stand-in:
// the model, tools, MCP servers and appended instructions take effect, and the prompt after the
// flags is still the prompt.
import { writeFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  agentClaudeArgs,
  clearAgentDefinitionCache,
  resolveAgentMcp,
  resolveAgentType,
} from '../../src/agent-types/index.js';
import { runClaude } from '../support/claude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { parseNdjson } from '../support/run-process.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let mock: MockAnthropic | undefined;
let t: TempHome | undefined;
afterEach(async () => {
  await mock?.close();
  t?.cleanup();
  mock = undefined;
  t = undefined;
});

// A minimal stdio MCP server with two tools.
const MCP_SERVER = `
import readline from 'node:readline';
const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (l) => {
  const m = JSON.parse(l);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'stub', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: ['ping', 'pong'].map((name) => ({ name, description: name, inputSchema: { type: 'object', properties: {} } })) } });
  else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: {} });
});
`;

function systemText(body: any): string {
  const s = body?.system;
  return typeof s === 'string' ? s : Array.isArray(s) ? s.map((b: any) => b?.text ?? '').join('\n') : '';
}

async function runAgent(type: string, prompt: string) {
  clearAgentDefinitionCache();
  const opts = { cwd: t!.projectDir, env: t!.env };
  const def = resolveAgentType(type, opts);
  const args = agentClaudeArgs(def, resolveAgentMcp(def, opts));
  const r = await runClaude(['-p', '--output-format', 'stream-json', '--verbose', ...args, prompt], {
    env: t!.env,
    cwd: t!.projectDir,
  });
  const events = parseNdjson(r.stdout);
  return { r, args, init: events.find((e) => e.type === 'system' && e.subtype === 'init'), result: events.at(-1) };
}

describe('agent definition → real claude', () => {
  it('model, tools, picked MCP server and instructions take effect; the prompt is not swallowed', async () => {
    mock = await startMockAnthropic();
    t = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-agents-claude-' });
    const stub = join(t.root, 'mcp-stub.mjs');
    writeFileSync(stub, MCP_SERVER);
    writeFileSync(
      join(t.projectDir, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          mine: { command: process.execPath, args: [stub] },
          other: { command: process.execPath, args: ['-e', '0'] },
        },
      }),
    );
    const claudeJson = JSON.parse(readFileSync(t.claudeJsonPath, 'utf8'));
    claudeJson.mcpServers = { usr: { command: process.execPath, args: ['-e', '0'] } };
    writeFileSync(t.claudeJsonPath, JSON.stringify(claudeJson));
    mkdirSync(join(t.projectDir, '.claude'), { recursive: true });
    writeFileSync(
      join(t.projectDir, '.claude', 'settings.local.json'),
      JSON.stringify({ enabledMcpjsonServers: ['mine', 'other'] }),
    );
    const marker = `AGENT-INSTRUCTIONS-${Math.random().toString(36).slice(2)}`;
    mkdirSync(join(t.projectDir, '.claude', 'agents'), { recursive: true });
    writeFileSync(
      join(t.projectDir, '.claude', 'agents', 'pinger.md'),
      [
        '---',
        'model: sonnet',
        'reasoningEffort: low',
        'tools: Read, Grep, mcp__mine__ping',
        'mcpServers: [mine]',
        '---',
        `- ${marker}`,
        '',
      ].join('\n'),
    );

    const prompt = `agent prompt ${Math.random().toString(36).slice(2)}`;
    mock.enqueue({ text: 'pinged' });
    const { r, args, init, result } = await runAgent('pinger', prompt);
    expect(args).toContain('--strict-mcp-config');
    expect(r.code, r.stderr).toBe(0);
    expect([...init.tools].sort()).toEqual(['Grep', 'Read', 'mcp__mine__ping', 'mcp__mine__pong']);
    // 2.1.332 adds `source: 'dynamic'` (a server given by --mcp-config).
    expect(init.mcp_servers).toEqual([expect.objectContaining({ name: 'mine', status: 'connected' })]);
    expect(init.mcp_servers[0].source ?? 'dynamic').toBe('dynamic');
    expect(init.model).toMatch(/sonnet/);
    expect(result).toMatchObject({ type: 'result', subtype: 'success', result: 'pinged' });

    const [req] = mock.mainRequests();
    expect(req!.prompt).toBe(prompt);
    expect(systemText(req!.body)).toContain(`- ${marker}`);
    expect(req!.body.model).toMatch(/sonnet/);
    // (claude 2.1.197 sends no effort for haiku models: sonnet here.)
    expect(req!.body.output_config?.effort).toBe('low');
  });

  it("the built-in general keeps claude's tools; an unapproved .mcp.json server is not loaded (strict, empty)", async () => {
    mock = await startMockAnthropic();
    t = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-agents-claude-' });
    const stub = join(t.root, 'mcp-stub.mjs');
    writeFileSync(stub, MCP_SERVER);
    writeFileSync(
      join(t.projectDir, '.mcp.json'),
      JSON.stringify({ mcpServers: { mine: { command: process.execPath, args: [stub] } } }),
    );
    const { r, args, init } = await runAgent('general', 'hello');
    expect(args).toEqual(['--mcp-config={"mcpServers":{}}', '--strict-mcp-config']);
    expect(r.code, r.stderr).toBe(0);
    expect(init.tools).toContain('Bash');
    expect(init.tools).toContain('Write');
    // claude -p alone would start it (no approval step in print mode); klaude's strict config does not name it.
    expect(init.mcp_servers).toEqual([]);
    expect(init.tools).not.toContain('mcp__mine__ping');
  });
});

// A repository's `.mcp.json` servers through the real claude and the stand-in: `claude -p` on its
// own starts every one; an agent klaude starts gets only those the person approved (and the
// person's own server where a repo server of the same name is not approved). Each stub server
// leaves a marker file when it starts, so "not started" is a fact, not a missing tool.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, claudeAtLeast, runClaude } from '../support/claude-bin.js';
import { runKlaude } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { parseNdjson } from '../support/run-process.js';
import { killLeftRuntimes } from '../support/runtime-cleanup.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let mock: MockAnthropic | undefined;
let t: TempHome | undefined;
afterEach(async () => {
  if (t) killLeftRuntimes(t.klaudeHome);
  await mock?.close();
  t?.cleanup();
  mock = undefined;
  t = undefined;
});

// A stdio MCP server with one tool; it writes the file named by its first argument when it starts.
const MCP_SERVER = `
import { writeFileSync } from 'node:fs';
import readline from 'node:readline';
writeFileSync(process.argv[2], 'started');
const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
readline.createInterface({ input: process.stdin }).on('line', (l) => {
  const m = JSON.parse(l);
  if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'stub', version: '1' } } });
  else if (m.method === 'tools/list') send({ jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'ping', description: 'ping', inputSchema: { type: 'object', properties: {} } }] } });
  else if (m.id !== undefined) send({ jsonrpc: '2.0', id: m.id, result: {} });
});
`;

interface Project {
  h: TempHome;
  marker: (tag: string) => string;
  clearMarkers: () => void;
}

/** .mcp.json: approved, unapproved, shared; the person's own (user scope): shared. */
async function setup(approvals: Record<string, unknown>): Promise<Project> {
  mock = await startMockAnthropic({ responder: async () => ({ text: 'done' }) });
  const h = makeTempHome({ baseUrl: mock.url, prefix: 'klaude-mcp-approval-' });
  t = h;
  writeFileSync(join(h.klaudeHome, 'config.yaml'), `claude:\n  binary: ${CLAUDE_BIN}\n`);
  const stub = join(h.root, 'mcp-stub.mjs');
  writeFileSync(stub, MCP_SERVER);
  const markers = join(h.root, 'markers');
  mkdirSync(markers);
  const marker = (tag: string) => join(markers, tag);
  const server = (tag: string) => ({ command: process.execPath, args: [stub, marker(tag)] });
  writeFileSync(
    join(h.projectDir, '.mcp.json'),
    JSON.stringify({
      mcpServers: { approved: server('approved'), unapproved: server('unapproved'), shared: server('shared-repo') },
    }),
  );
  const claudeJson = JSON.parse(readFileSync(h.claudeJsonPath, 'utf8'));
  claudeJson.mcpServers = { shared: server('shared-user') };
  writeFileSync(h.claudeJsonPath, JSON.stringify(claudeJson));
  mkdirSync(join(h.projectDir, '.claude'), { recursive: true });
  writeFileSync(join(h.projectDir, '.claude', 'settings.local.json'), JSON.stringify(approvals));
  const clearMarkers = () => {
    rmSync(markers, { recursive: true, force: true });
    mkdirSync(markers);
  };
  return { h, marker, clearMarkers };
}

/**
 * The tools a request offers: its `tools`, and (claude 2.1.332) the MCP tools it defers behind
 * ToolSearch, which it names only in the text that lists deferred tools.
 */
const toolNames = (m: MockAnthropic, prompt: string): string[] => {
  const body = m.mainRequests().find((r) => r.prompt === prompt)?.body;
  const listed = (body?.tools ?? []).map((x: { name: string }) => x.name) as string[];
  const deferred = JSON.stringify(body ?? null).match(/\bmcp__[A-Za-z0-9_-]+/g) ?? [];
  return [...new Set([...listed, ...deferred])].sort();
};

describe('project MCP servers and approval', () => {
  it('claude -p alone starts the unapproved repo server and prefers it; a klaude agent gets only the approved one', async () => {
    const { h, marker, clearMarkers } = await setup({ enabledMcpjsonServers: ['approved'] });

    // The hole: plain claude -p starts what nobody approved, and the repo's `shared` over the person's.
    const plain = await runClaude(['-p', '--output-format', 'stream-json', '--verbose', 'plain run'], {
      env: h.env,
      cwd: h.projectDir,
    });
    expect(plain.code, plain.stderr).toBe(0);
    const init = parseNdjson(plain.stdout).find((e) => e.type === 'system' && e.subtype === 'init');
    expect(init.mcp_servers.map((s: { name: string }) => s.name).sort()).toEqual(['approved', 'shared', 'unapproved']);
    expect(existsSync(marker('unapproved'))).toBe(true);
    expect(existsSync(marker('shared-repo'))).toBe(true);
    expect(existsSync(marker('shared-user'))).toBe(false);

    clearMarkers();
    const r = await runKlaude(['start', 'general', 'agent run'], { env: h.env, cwd: h.projectDir, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('done');
    expect(existsSync(marker('approved'))).toBe(true);
    expect(existsSync(marker('shared-user'))).toBe(true);
    expect(existsSync(marker('unapproved'))).toBe(false);
    expect(existsSync(marker('shared-repo'))).toBe(false);
    const offered = toolNames(mock!, 'agent run').filter((n) => n.startsWith('mcp__'));
    if (claudeAtLeast('2.1.332')) {
      // 2.1.332 does not wait for MCP servers before its first request: on a loaded machine that
      // request can come before they connect (the markers above show which ones started).
      expect(offered.filter((n) => !['mcp__approved__ping', 'mcp__shared__ping'].includes(n))).toEqual([]);
    } else {
      expect(offered).toEqual(['mcp__approved__ping', 'mcp__shared__ping']);
    }
  });

  it('with no approval at all the agent still runs under a strict config: no repo server starts', async () => {
    const { h, marker } = await setup({});
    const r = await runKlaude(['start', 'general', 'agent run'], { env: h.env, cwd: h.projectDir, timeoutMs: 60_000 });
    expect(r.code, r.stderr).toBe(0);
    for (const tag of ['approved', 'unapproved', 'shared-repo']) expect(existsSync(marker(tag)), tag).toBe(false);
    expect(existsSync(marker('shared-user'))).toBe(true);

    const listing = await runKlaude(['agents'], { env: h.env, cwd: h.projectDir });
    expect(listing.code).toBe(0);
    expect(listing.stdout).toContain(
      [
        `MCP servers of ${join(h.projectDir, '.mcp.json')} left out (agents do not get them):`,
        '  approved    not approved',
        '  unapproved  not approved',
        '  shared      not approved (agents get the user server of that name)',
        `to approve, add "enabledMcpjsonServers": ["approved","unapproved","shared"] (or "enableAllProjectMcpServers": true) to ${join(h.projectDir, '.claude', 'settings.local.json')}, or run \`claude\` in the project and answer its prompt`,
      ].join('\n'),
    );
    const json = JSON.parse((await runKlaude(['agents', '--json'], { env: h.env, cwd: h.projectDir })).stdout);
    expect(json.mcp.leftOut.map((s: { name: string }) => s.name)).toEqual(['approved', 'unapproved', 'shared']);
    expect(json.mcp.servers).toEqual([{ name: 'shared', scope: 'user', file: h.claudeJsonPath }]);
  });
});

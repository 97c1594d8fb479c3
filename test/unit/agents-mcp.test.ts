// MCP resolution for agents: Claude Code's scopes (local > project > user) and the agent's fields.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinGeneral, loadMcpServers, resolveAgentMcp, type AgentDefinition } from '../../src/agent-types/index.js';
import { KlaudeError } from '../../src/lib/errors.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let t: TempHome;
beforeEach(() => {
  t = makeTempHome({ prefix: 'klaude-mcp-' });
});
afterEach(() => t.cleanup());

const srv = (tag: string) => ({ command: 'node', args: [`${tag}.js`] });

/** user: a, b, c; project (.mcp.json): b, c, d; local: c, e. */
function writeScopes(extraLocal: Record<string, unknown> = {}): void {
  const claudeJson = JSON.parse(readFileSync(t.claudeJsonPath, 'utf8'));
  claudeJson.mcpServers = { a: srv('user-a'), b: srv('user-b'), c: srv('user-c') };
  claudeJson.projects[t.projectDir] = {
    ...claudeJson.projects[t.projectDir],
    mcpServers: { c: srv('local-c'), e: srv('local-e') },
    ...extraLocal,
  };
  writeFileSync(t.claudeJsonPath, JSON.stringify(claudeJson));
  writeFileSync(
    join(t.projectDir, '.mcp.json'),
    JSON.stringify({ mcpServers: { b: srv('project-b'), c: srv('project-c'), d: srv('project-d') } }),
  );
}

const opts = (more: { parentServers?: Record<string, unknown> } = {}) => ({ cwd: t.projectDir, env: t.env, ...more });
const agent = (over: Partial<AgentDefinition>): AgentDefinition => ({
  ...builtinGeneral(),
  name: 'x',
  source: 'project',
  path: '/p/x.md',
  ...over,
});
const parsed = (json: string | null) => (json === null ? null : JSON.parse(json).mcpServers);

describe('MCP scopes', () => {
  it('local over project over user, from HOME/.claude.json and <root>/.mcp.json', () => {
    writeScopes();
    const s = loadMcpServers(opts());
    expect(Object.fromEntries(Object.entries(s).map(([n, e]) => [n, [e.scope, e.config.args]]))).toEqual({
      a: ['user', ['user-a.js']],
      b: ['project', ['project-b.js']],
      c: ['local', ['local-c.js']],
      d: ['project', ['project-d.js']],
      e: ['local', ['local-e.js']],
    });
    expect(s.d!.file).toBe(join(t.projectDir, '.mcp.json'));
  });

  it('leaves out project servers the person disabled for the project', () => {
    writeScopes({ disabledMcpjsonServers: ['d'] });
    expect(Object.keys(loadMcpServers(opts())).sort()).toEqual(['a', 'b', 'c', 'e']);
  });

  it('honours CLAUDE_CONFIG_DIR for .claude.json', () => {
    const dir = join(t.root, 'cfg');
    mkdirSync(dir);
    writeFileSync(join(dir, '.claude.json'), JSON.stringify({ mcpServers: { z: srv('z') } }));
    expect(Object.keys(loadMcpServers({ cwd: t.projectDir, env: { ...t.env, CLAUDE_CONFIG_DIR: dir } }))).toEqual([
      'z',
    ]);
  });

  it('a broken .mcp.json is an E_CONFIG error naming the file', () => {
    writeFileSync(join(t.projectDir, '.mcp.json'), '{ nope');
    expect(() => loadMcpServers(opts())).toThrow(/\.mcp\.json is not valid JSON/);
  });
});

describe('resolveAgentMcp', () => {
  it('default agent: nothing to pass (claude loads the same scopes), servers = the visible set', () => {
    writeScopes();
    const r = resolveAgentMcp(builtinGeneral(), opts());
    expect(r.mcpConfigJson).toBeNull();
    expect(r.strict).toBe(false);
    expect(Object.keys(r.servers).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(r.servers.c).toEqual(srv('local-c'));
  });

  it('default agent with a broken config file still starts (claude reports its own files)', () => {
    writeFileSync(join(t.projectDir, '.mcp.json'), '{ nope');
    expect(resolveAgentMcp(builtinGeneral(), opts())).toEqual({ mcpConfigJson: null, strict: false, servers: {} });
  });

  it('names pick exactly those servers, with the winning scope config, strict', () => {
    writeScopes();
    const r = resolveAgentMcp(agent({ mcpServers: { pick: ['c', 'a'], inline: {} } }), opts());
    expect(r.strict).toBe(true);
    expect(parsed(r.mcpConfigJson)).toEqual({ c: srv('local-c'), a: srv('user-a') });
  });

  it('an unknown server name is E_AGENT_DEFINITION naming the file, the server and the known ones', () => {
    writeScopes();
    let err: unknown;
    try {
      resolveAgentMcp(agent({ mcpServers: { pick: ['a', 'github'], inline: {} } }), opts());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(KlaudeError);
    expect((err as KlaudeError).code).toBe('E_AGENT_DEFINITION');
    expect((err as KlaudeError).message).toBe(
      "/p/x.md: field 'mcpServers': unknown MCP server 'github' (known: a, b, c, d, e)",
    );
  });

  it('mcpServers: [] gives no servers at all', () => {
    writeScopes();
    const r = resolveAgentMcp(agent({ mcpServers: { pick: [], inline: {} } }), opts());
    expect(r).toEqual({ mcpConfigJson: '{"mcpServers":{}}', strict: true, servers: {} });
  });

  it('inline servers as a map are added to the inherited ones, without strict', () => {
    writeScopes();
    const r = resolveAgentMcp(
      agent({ mcpServers: { pick: null, inline: { web: { type: 'http', url: 'http://x' } } } }),
      opts(),
    );
    expect(r.strict).toBe(false);
    expect(parsed(r.mcpConfigJson)).toEqual({ web: { type: 'http', url: 'http://x' } });
    expect(Object.keys(r.servers).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'web']);
  });

  it('an inline server redefining a visible one passes the whole set, strict', () => {
    writeScopes();
    const r = resolveAgentMcp(agent({ mcpServers: { pick: null, inline: { a: srv('mine') } } }), opts());
    expect(r.strict).toBe(true);
    expect(parsed(r.mcpConfigJson)).toMatchObject({ a: srv('mine'), b: srv('project-b'), e: srv('local-e') });
  });

  it('a list mixing names and inline servers: exactly those', () => {
    writeScopes();
    const r = resolveAgentMcp(agent({ mcpServers: { pick: ['b'], inline: { web: { url: 'http://x' } } } }), opts());
    expect(r.strict).toBe(true);
    expect(parsed(r.mcpConfigJson)).toEqual({ b: srv('project-b'), web: { url: 'http://x' } });
  });

  it('inheritProjectMcps: false gives nothing from the scopes', () => {
    writeScopes();
    const r = resolveAgentMcp(agent({ inheritProjectMcps: false }), opts());
    expect(r).toEqual({ mcpConfigJson: '{"mcpServers":{}}', strict: true, servers: {} });
  });

  it('inheritProjectMcps: false with no servers anywhere changes nothing', () => {
    expect(resolveAgentMcp(agent({ inheritProjectMcps: false }), opts())).toEqual({
      mcpConfigJson: null,
      strict: false,
      servers: {},
    });
  });

  it('inheritParentMcps adds the parent session servers', () => {
    writeScopes();
    const parentServers = { p1: srv('parent-1'), a: srv('user-a') };
    const only = resolveAgentMcp(
      agent({ inheritProjectMcps: false, inheritParentMcps: true }),
      opts({ parentServers }),
    );
    expect(only.strict).toBe(true);
    expect(parsed(only.mcpConfigJson)).toEqual(parentServers);

    const plus = resolveAgentMcp(agent({ inheritParentMcps: true }), opts({ parentServers }));
    expect(plus.strict).toBe(false);
    expect(parsed(plus.mcpConfigJson)).toEqual({ p1: srv('parent-1') });
  });

  it('parent servers are ignored without inheritParentMcps, but names may pick from them', () => {
    writeScopes();
    const parentServers = { p1: srv('parent-1') };
    expect(resolveAgentMcp(agent({}), opts({ parentServers })).mcpConfigJson).toBeNull();
    const picked = resolveAgentMcp(agent({ mcpServers: { pick: ['p1'], inline: {} } }), opts({ parentServers }));
    expect(parsed(picked.mcpConfigJson)).toEqual({ p1: srv('parent-1') });
  });
});

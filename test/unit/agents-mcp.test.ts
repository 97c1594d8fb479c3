// MCP resolution for agents: Claude Code's scopes (local > project > user) and the agent's fields.
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinGeneral, loadMcpServers, resolveAgentMcp, type AgentDefinition } from '../../src/agent-types/index.js';
import { mcpInventory } from '../../src/agent-types/mcp.js';
import { launchMcp, plainAgentType } from '../../src/agent-types/launch-settings.js';
import { KlaudeError } from '../../src/lib/errors.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

let t: TempHome;
beforeEach(() => {
  t = makeTempHome({ prefix: 'klaude-mcp-' });
});
afterEach(() => t.cleanup());

const srv = (tag: string) => ({ command: 'node', args: [`${tag}.js`] });

function writeLocalSettings(settings: Record<string, unknown>): void {
  mkdirSync(join(t.projectDir, '.claude'), { recursive: true });
  writeFileSync(join(t.projectDir, '.claude', 'settings.local.json'), JSON.stringify(settings));
}

/** user: a, b, c; project (.mcp.json): b, c, d, all approved unless `approve` says otherwise; local: c, e. */
function writeScopes(extraLocal: Record<string, unknown> = {}, approve: Record<string, unknown> | null = null): void {
  writeLocalSettings(approve ?? { enableAllProjectMcpServers: true });
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
  it('default agent: the whole visible set, strict (claude loads nothing of its own)', () => {
    writeScopes();
    const r = resolveAgentMcp(builtinGeneral(), opts());
    expect(r.strict).toBe(true);
    expect(Object.keys(r.servers).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(parsed(r.mcpConfigJson)).toEqual(r.servers);
    expect(r.servers.c).toEqual(srv('local-c'));
  });

  it('default agent with a broken .mcp.json still starts, without its servers (as claude skips it)', () => {
    writeFileSync(join(t.projectDir, '.mcp.json'), '{ nope');
    expect(resolveAgentMcp(builtinGeneral(), opts())).toEqual({
      mcpConfigJson: '{"mcpServers":{}}',
      strict: true,
      servers: {},
    });
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

  it('inline servers as a map are added to the inherited ones', () => {
    writeScopes();
    const r = resolveAgentMcp(
      agent({ mcpServers: { pick: null, inline: { web: { type: 'http', url: 'http://x' } } } }),
      opts(),
    );
    expect(r.strict).toBe(true);
    expect(Object.keys(parsed(r.mcpConfigJson)).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'web']);
    expect(Object.keys(r.servers).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'web']);
  });

  it('an inline server redefining a visible one replaces it', () => {
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

  it('inheritProjectMcps: false with no servers anywhere passes an empty strict set', () => {
    expect(resolveAgentMcp(agent({ inheritProjectMcps: false }), opts())).toEqual({
      mcpConfigJson: '{"mcpServers":{}}',
      strict: true,
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
    expect(plus.strict).toBe(true);
    expect(Object.keys(parsed(plus.mcpConfigJson)).sort()).toEqual(['a', 'b', 'c', 'd', 'e', 'p1']);
  });

  it('parent servers are ignored without inheritParentMcps, but names may pick from them', () => {
    writeScopes();
    const parentServers = { p1: srv('parent-1') };
    expect(Object.keys(resolveAgentMcp(agent({}), opts({ parentServers })).servers)).not.toContain('p1');
    const picked = resolveAgentMcp(agent({ mcpServers: { pick: ['p1'], inline: {} } }), opts({ parentServers }));
    expect(parsed(picked.mcpConfigJson)).toEqual({ p1: srv('parent-1') });
  });
});

describe("project servers follow Claude Code's approval rule", () => {
  const names = (o: object) => Object.keys(o).sort();
  const inv = () => mcpInventory(opts());
  const writeProjectSettings = (settings: Record<string, unknown>) => {
    mkdirSync(join(t.projectDir, '.claude'), { recursive: true });
    writeFileSync(join(t.projectDir, '.claude', 'settings.json'), JSON.stringify(settings));
  };

  it('unapproved: left out and listed; the person’s own same-named servers stand in', () => {
    writeScopes({}, {});
    const i = inv();
    expect(names(i.servers)).toEqual(['a', 'b', 'c', 'e']);
    expect(i.servers.b).toMatchObject({ scope: 'user', config: srv('user-b') });
    expect(i.servers.c).toMatchObject({ scope: 'local', config: srv('local-c') });
    expect(i.leftOut).toEqual(
      ['b', 'c', 'd'].map((name) => ({
        name,
        file: join(t.projectDir, '.mcp.json'),
        approval: 'pending',
        why: 'not approved',
      })),
    );
    const r = resolveAgentMcp(builtinGeneral(), opts());
    expect(parsed(r.mcpConfigJson)).toEqual({
      a: srv('user-a'),
      b: srv('user-b'),
      c: srv('local-c'),
      e: srv('local-e'),
    });
  });

  it('enabledMcpjsonServers in local settings approves those names only', () => {
    writeScopes({}, { enabledMcpjsonServers: ['d'] });
    expect(names(inv().servers)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(inv().servers.b!.scope).toBe('user');
    expect(inv().leftOut.map((s) => s.name)).toEqual(['b', 'c']);
  });

  it('user settings count, under CLAUDE_CONFIG_DIR when it is set', () => {
    writeScopes({}, {});
    const dir = join(t.root, 'cfg');
    mkdirSync(dir);
    writeFileSync(join(dir, '.claude.json'), readFileSync(t.claudeJsonPath, 'utf8'));
    writeFileSync(join(dir, 'settings.json'), JSON.stringify({ enableAllProjectMcpServers: true }));
    const env = { ...t.env, CLAUDE_CONFIG_DIR: dir };
    expect(mcpInventory({ cwd: t.projectDir, env }).leftOut).toEqual([]);
    // ~/.claude/settings.json is not read once CLAUDE_CONFIG_DIR moves it
    writeFileSync(join(dir, 'settings.json'), '{}');
    writeFileSync(join(t.home, '.claude', 'settings.json'), JSON.stringify({ enableAllProjectMcpServers: true }));
    expect(mcpInventory({ cwd: t.projectDir, env }).leftOut).toHaveLength(3);
    expect(inv().leftOut).toEqual([]);
  });

  it('project settings approve only in a workspace the person trusted', () => {
    writeScopes({}, {});
    writeProjectSettings({ enabledMcpjsonServers: ['d'] });
    expect(inv().leftOut.map((s) => s.name)).toEqual(['b', 'c']); // the temp project is trusted
    writeScopes({ hasTrustDialogAccepted: false }, {});
    const left = inv().leftOut;
    expect(left.map((s) => s.name)).toEqual(['b', 'c', 'd']);
    expect(left[2]!.why).toBe(
      `approved only in ${join(t.projectDir, '.claude', 'settings.json')}, which counts once you trust this project in claude`,
    );
  });

  it('disabledMcpjsonServers in any settings file wins over an approval', () => {
    writeScopes({}, { enableAllProjectMcpServers: true, disabledMcpjsonServers: ['b'] });
    writeProjectSettings({ disabledMcpjsonServers: ['c'] });
    expect(inv().leftOut.map((s) => [s.name, s.approval])).toEqual([
      ['b', 'rejected'],
      ['c', 'rejected'],
    ]);
    expect(inv().leftOut[0]!.why).toBe(
      `disabled in ${join(t.projectDir, '.claude', 'settings.local.json')} (disabledMcpjsonServers)`,
    );
  });

  it('the older per-project entry in ~/.claude.json counts (claude moves it to local settings)', () => {
    writeScopes({ enabledMcpjsonServers: ['b', 'c'] }, {});
    expect(inv().leftOut.map((s) => s.name)).toEqual(['d']);
  });

  it('a symlinked local settings file approves nothing in an untrusted workspace', () => {
    writeScopes({ hasTrustDialogAccepted: false }, {});
    const real = join(t.projectDir, 'committed.json');
    writeFileSync(real, JSON.stringify({ enableAllProjectMcpServers: true }));
    rmSync(join(t.projectDir, '.claude', 'settings.local.json'));
    symlinkSync(real, join(t.projectDir, '.claude', 'settings.local.json'));
    expect(inv().leftOut).toHaveLength(3);
    expect(inv().rule.approveFile).toBe(join(t.home, '.claude', 'settings.json'));
    const claudeJson = JSON.parse(readFileSync(t.claudeJsonPath, 'utf8'));
    claudeJson.projects[t.projectDir].hasTrustDialogAccepted = true;
    writeFileSync(t.claudeJsonPath, JSON.stringify(claudeJson));
    expect(inv().leftOut).toEqual([]); // once trusted, claude reads it too
  });

  it('names compare as claude compares them (other characters count as _)', () => {
    writeFileSync(join(t.projectDir, '.mcp.json'), JSON.stringify({ mcpServers: { 'my.server': srv('m') } }));
    writeLocalSettings({ enabledMcpjsonServers: ['my_server'] });
    expect(names(inv().servers)).toEqual(['my.server']);
  });

  it('an agent naming a left-out server: E_AGENT_DEFINITION saying how to approve it', () => {
    writeScopes({}, {});
    let err: unknown;
    try {
      resolveAgentMcp(agent({ mcpServers: { pick: ['d'], inline: {} } }), opts());
    } catch (e) {
      err = e;
    }
    expect((err as KlaudeError).code).toBe('E_AGENT_DEFINITION');
    expect((err as KlaudeError).message).toBe(
      `/p/x.md: field 'mcpServers': MCP server 'd' of ${join(t.projectDir, '.mcp.json')} is not approved`,
    );
    expect((err as KlaudeError).hint).toContain(
      `"enabledMcpjsonServers": ["d"] (or "enableAllProjectMcpServers": true) to ${join(t.projectDir, '.claude', 'settings.local.json')}`,
    );
    // a same-named server of the person's own is picked instead of the unapproved one
    const r = resolveAgentMcp(agent({ mcpServers: { pick: ['b'], inline: {} } }), opts());
    expect(parsed(r.mcpConfigJson)).toEqual({ b: srv('user-b') });
  });
});

describe('launchMcp: metadata that left MCP to claude', () => {
  const meta = (mcpConfig: string | null, mcpStrict: boolean) => ({
    cwd: t.projectDir,
    projectRoot: t.projectDir,
    agent: { ...plainAgentTypeRest(), mcpConfig, mcpStrict },
  });
  const plainAgentTypeRest = () => {
    const { type: _t, runtime: _r, model: _m, ...rest } = plainAgentType('general');
    return rest;
  };

  it('null (no metadata, or an older klaude): the scopes resolved now, strict', () => {
    writeScopes({}, { enabledMcpjsonServers: ['d'] });
    const m = launchMcp(meta(null, false), t.env, 'claude');
    expect(m.agent.mcpStrict).toBe(true);
    expect(Object.keys(parsed(m.agent.mcpConfig)).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('not strict (added to claude’s own): the scopes plus what was added', () => {
    writeScopes({}, {});
    const m = launchMcp(meta('{"mcpServers":{"web":{"url":"http://x"}}}', false), t.env, 'claude');
    expect(Object.keys(parsed(m.agent.mcpConfig)).sort()).toEqual(['a', 'b', 'c', 'e', 'web']);
  });

  it('resolved metadata, and other runtimes, are left as they are', () => {
    writeScopes();
    const strict = meta('{"mcpServers":{}}', true);
    expect(launchMcp(strict, t.env, 'claude')).toBe(strict);
    const codex = meta(null, false);
    expect(launchMcp(codex, t.env, 'codex')).toBe(codex);
  });
});

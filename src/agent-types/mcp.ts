/**
 * MCP servers for an agent. Claude Code's three scopes, highest first:
 *   local   `~/.claude.json` → projects[<project root>].mcpServers
 *   project `<root>/.mcp.json` → mcpServers (minus servers the person disabled for the project)
 *   user    `~/.claude.json` → mcpServers
 * Then the agent's fields decide what it gets:
 *   - `mcpServers` as a list: exactly the listed servers (names picked from the scopes, or from the
 *     parent's servers; `{name: config}` items inline);
 *   - otherwise `inheritProjectMcps` (default true): every project-visible server, plus
 *     `mcpServers` as a map: inline servers added;
 *   - `inheritParentMcps`: the parent session's servers added.
 * claude loads the project-visible servers by itself, so klaude passes `--mcp-config` only when
 * the agent's set differs: the additions alone when it only adds, or the whole set with
 * `--strict-mcp-config` when it narrows (or redefines a server).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { claudeJsonPath, tildify } from '../claude/config-dir.js';
import type { AgentDefinition, AgentLookupOptions, AgentMcp, McpServerConfig } from './types.js';

export type { AgentMcp } from './types.js';

export type McpScope = 'local' | 'project' | 'user';

export interface McpServerEntry {
  name: string;
  scope: McpScope;
  /** The file it was read from. */
  file: string;
  config: McpServerConfig;
}

export interface AgentMcpOptions extends AgentLookupOptions {
  /** The parent session's servers (name → config), used with `inheritParentMcps`. */
  parentServers?: Record<string, unknown>;
}

function readJson(file: string): Record<string, unknown> | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new KlaudeError('E_CONFIG', `cannot read ${file}: ${(e as Error).message}`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (e) {
    throw new KlaudeError('E_CONFIG', `${file} is not valid JSON: ${(e as Error).message}`, {
      hint: 'fix the file (claude reads it too) or move it away',
    });
  }
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new KlaudeError('E_CONFIG', `${file} must hold a JSON object`);
  }
  return data as Record<string, unknown>;
}

function serversOf(value: unknown, file: string, where: string, scope: McpScope): McpServerEntry[] {
  if (value === undefined || value === null) return [];
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new KlaudeError('E_CONFIG', `${file}: ${where} must be an object of MCP servers`);
  }
  return Object.entries(value).map(([name, config]) => {
    if (config === null || typeof config !== 'object' || Array.isArray(config)) {
      throw new KlaudeError('E_CONFIG', `${file}: ${where}.${name} must be an object (an MCP server config)`);
    }
    return { name, scope, file, config: config as McpServerConfig };
  });
}

function stringArray(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The MCP servers claude would load in this project, highest-precedence scope per name. */
export function loadMcpServers(opts: AgentLookupOptions = {}): Record<string, McpServerEntry> {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const root = projectRoot(cwd);
  const globalFile = claudeJsonPath(env);
  const global = readJson(globalFile) ?? {};
  const projects = (global.projects && typeof global.projects === 'object' ? global.projects : {}) as Record<
    string,
    unknown
  >;
  const localKey = root in projects ? root : path.resolve(cwd);
  const local = (projects[localKey] && typeof projects[localKey] === 'object' ? projects[localKey] : {}) as Record<
    string,
    unknown
  >;

  const mcpJsonFile = path.join(root, '.mcp.json');
  const mcpJson = readJson(mcpJsonFile) ?? {};
  const settingsLocal = readJson(path.join(root, '.claude', 'settings.local.json')) ?? {};
  const disabled = new Set([
    ...stringArray(local.disabledMcpjsonServers),
    ...stringArray(settingsLocal.disabledMcpjsonServers),
  ]);

  const out: Record<string, McpServerEntry> = {};
  const layers = [
    serversOf(global.mcpServers, globalFile, 'mcpServers', 'user'),
    serversOf(mcpJson.mcpServers, mcpJsonFile, 'mcpServers', 'project').filter((s) => !disabled.has(s.name)),
    serversOf(local.mcpServers, globalFile, `projects["${localKey}"].mcpServers`, 'local'),
  ];
  for (const layer of layers) for (const s of layer) out[s.name] = s;
  return out;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

function parentConfigs(parent: Record<string, unknown> | undefined): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  for (const [name, cfg] of Object.entries(parent ?? {})) {
    if (cfg !== null && typeof cfg === 'object' && !Array.isArray(cfg)) out[name] = cfg as McpServerConfig;
  }
  return out;
}

/** Decide the `--mcp-config` / `--strict-mcp-config` an agent of this definition gets. */
export function resolveAgentMcp(def: AgentDefinition, opts: AgentMcpOptions = {}): AgentMcp {
  const parent = def.inheritParentMcps ? parentConfigs(opts.parentServers) : {};
  const pick = def.mcpServers?.pick ?? null;
  const inline = def.mcpServers?.inline ?? {};
  const isDefault =
    pick === null && def.inheritProjectMcps && Object.keys(inline).length === 0 && Object.keys(parent).length === 0;

  let visibleEntries: Record<string, McpServerEntry>;
  try {
    visibleEntries = loadMcpServers(opts);
  } catch (e) {
    // The default agent changes nothing: claude reads (and reports on) its own files.
    if (isDefault) return { mcpConfigJson: null, strict: false, servers: {} };
    throw e;
  }
  const visible: Record<string, McpServerConfig> = {};
  for (const [name, s] of Object.entries(visibleEntries)) visible[name] = s.config;
  if (isDefault) return { mcpConfigJson: null, strict: false, servers: visible };

  let base: Record<string, McpServerConfig>;
  if (pick !== null) {
    const pool = { ...parentConfigs(opts.parentServers), ...visible };
    base = {};
    for (const name of pick) {
      const cfg = pool[name];
      if (!cfg) {
        const known = Object.keys(pool);
        throw new KlaudeError(
          'E_AGENT_DEFINITION',
          `${def.path ?? def.name}: field 'mcpServers': unknown MCP server '${name}' (known: ${known.length ? known.join(', ') : 'none'})`,
          {
            hint: `add it with \`claude mcp add\`, to ${path.join(projectRoot(opts.cwd ?? process.cwd()), '.mcp.json')} or ${tildify(claudeJsonPath(opts.env ?? process.env), opts.env ?? process.env)}, or define it inline in the agent file`,
            details: { server: name, known },
          },
        );
      }
      base[name] = cfg;
    }
  } else {
    base = def.inheritProjectMcps ? { ...visible } : {};
  }
  const servers: Record<string, McpServerConfig> = { ...base, ...parent, ...inline };

  const keepsVisible = Object.entries(visible).every(([name, cfg]) => name in servers && same(servers[name], cfg));
  if (keepsVisible) {
    const added: Record<string, McpServerConfig> = {};
    for (const [name, cfg] of Object.entries(servers)) if (!(name in visible)) added[name] = cfg;
    if (Object.keys(added).length === 0) return { mcpConfigJson: null, strict: false, servers };
    return { mcpConfigJson: JSON.stringify({ mcpServers: added }), strict: false, servers };
  }
  return { mcpConfigJson: JSON.stringify({ mcpServers: servers }), strict: true, servers };
}

/**
 * MCP servers for an agent. Claude Code's three scopes, highest first:
 *   local   `~/.claude.json` → projects[<project root>].mcpServers
 *   project `<root>/.mcp.json` → mcpServers, only the servers the person approved for the project
 *           (Claude Code's rule, mcp-approval.ts); the others are left out and listed
 *   user    `~/.claude.json` → mcpServers
 * Then the agent's fields decide what it gets:
 *   - `mcpServers` as a list: exactly the listed servers (names picked from the scopes, or from the
 *     parent's servers; `{name: config}` items inline); a left-out server cannot be picked;
 *   - otherwise `inheritProjectMcps` (default true): every project-visible server, plus
 *     `mcpServers` as a map: inline servers added;
 *   - `inheritParentMcps`: the parent session's servers added.
 * klaude always passes the whole set with `--strict-mcp-config` (an empty set too): left to
 * itself, `claude -p` would start every `.mcp.json` server nobody approved.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { claudeJsonPath, tildify } from '../claude/config-dir.js';
import { approveHint, projectMcpRule, type McpApproval, type ProjectMcpRule } from './mcp-approval.js';
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

/** A `.mcp.json` server the agents do not get: not approved, or disabled, for the project. */
export interface LeftOutMcpServer {
  name: string;
  file: string;
  approval: Exclude<McpApproval, 'approved'>;
  why: string;
}

export interface McpInventory {
  /** What the agents may get: the highest-precedence scope per name. */
  servers: Record<string, McpServerEntry>;
  /** `.mcp.json` servers left out (a same-named user or local server may stand in for one). */
  leftOut: LeftOutMcpServer[];
  rule: ProjectMcpRule;
  /** Files that could not be read and were skipped (only with `lenient`). */
  problems: string[];
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

type JsonObject = Record<string, unknown>;
const objectAt = (v: unknown): JsonObject =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as JsonObject) : {};

/**
 * The MCP servers the project's agents may get, and the `.mcp.json` servers left out. `lenient`:
 * an unreadable file is skipped and named in `problems` (claude skips a broken `.mcp.json` too)
 * instead of being an E_CONFIG error.
 */
export function mcpInventory(opts: AgentLookupOptions = {}, lenient = false): McpInventory {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const root = projectRoot(cwd);
  const problems: string[] = [];
  const read = (file: string): JsonObject => {
    try {
      return readJson(file) ?? {};
    } catch (e) {
      if (!lenient) throw e;
      problems.push((e as Error).message);
      return {};
    }
  };
  const globalFile = claudeJsonPath(env);
  const global = read(globalFile);
  const projects = objectAt(global.projects);
  const localKey = root in projects ? root : path.resolve(cwd);
  const local = objectAt(projects[localKey]);
  const rule = projectMcpRule(root, env, local);
  problems.push(...rule.problems);

  const mcpJsonFile = path.join(root, '.mcp.json');
  const leftOut: LeftOutMcpServer[] = [];
  const approved = serversOf(read(mcpJsonFile).mcpServers, mcpJsonFile, 'mcpServers', 'project').filter((s) => {
    const d = rule.decide(s.name);
    if (d.approval !== 'approved') leftOut.push({ name: s.name, file: s.file, approval: d.approval, why: d.why ?? '' });
    return d.approval === 'approved';
  });
  const servers: Record<string, McpServerEntry> = {};
  const layers = [
    serversOf(global.mcpServers, globalFile, 'mcpServers', 'user'),
    approved,
    serversOf(local.mcpServers, globalFile, `projects["${localKey}"].mcpServers`, 'local'),
  ];
  for (const layer of layers) for (const s of layer) servers[s.name] = s;
  return { servers, leftOut, rule, problems };
}

/** The MCP servers the project's agents may get, highest-precedence scope per name. */
export function loadMcpServers(opts: AgentLookupOptions = {}): Record<string, McpServerEntry> {
  return mcpInventory(opts).servers;
}

function parentConfigs(parent: Record<string, unknown> | undefined): Record<string, McpServerConfig> {
  const out: Record<string, McpServerConfig> = {};
  for (const [name, cfg] of Object.entries(parent ?? {})) {
    if (cfg !== null && typeof cfg === 'object' && !Array.isArray(cfg)) out[name] = cfg as McpServerConfig;
  }
  return out;
}

function unknownServer(def: AgentDefinition, name: string, pool: string[], inv: McpInventory, opts: AgentMcpOptions) {
  const env = opts.env ?? process.env;
  const where = `${def.path ?? def.name}: field 'mcpServers'`;
  const left = inv.leftOut.find((s) => s.name === name);
  if (left) {
    return new KlaudeError('E_AGENT_DEFINITION', `${where}: MCP server '${name}' of ${left.file} is ${left.why}`, {
      hint: approveHint(inv.rule, [name], left.approval === 'rejected' ? [name] : [], env),
      details: { server: name, approval: left.approval },
    });
  }
  return new KlaudeError(
    'E_AGENT_DEFINITION',
    `${where}: unknown MCP server '${name}' (known: ${pool.length ? pool.join(', ') : 'none'})`,
    {
      hint: `add it with \`claude mcp add\`, to ${path.join(projectRoot(opts.cwd ?? process.cwd()), '.mcp.json')} or ${tildify(claudeJsonPath(env), env)}, or define it inline in the agent file`,
      details: { server: name, known: pool },
    },
  );
}

/**
 * The MCP config an agent of this definition gets: always the whole set, strict. An agent that
 * names servers needs the config files readable; one that only inherits starts without an
 * unreadable file's servers.
 */
export function resolveAgentMcp(def: AgentDefinition, opts: AgentMcpOptions = {}): AgentMcp {
  const parent = def.inheritParentMcps ? parentConfigs(opts.parentServers) : {};
  const pick = def.mcpServers?.pick ?? null;
  const inline = def.mcpServers?.inline ?? {};
  const needsScopes = pick !== null || def.inheritProjectMcps;
  const inv = needsScopes ? mcpInventory(opts, pick === null) : null;
  const visible: Record<string, McpServerConfig> = {};
  for (const [name, s] of Object.entries(inv?.servers ?? {})) visible[name] = s.config;

  let base: Record<string, McpServerConfig> = {};
  if (pick !== null) {
    const pool = { ...parentConfigs(opts.parentServers), ...visible };
    for (const name of pick) {
      const cfg = pool[name];
      if (!cfg) throw unknownServer(def, name, Object.keys(pool), inv!, opts);
      base[name] = cfg;
    }
  } else if (def.inheritProjectMcps) {
    base = visible;
  }
  const servers: Record<string, McpServerConfig> = { ...base, ...parent, ...inline };
  return { mcpConfigJson: JSON.stringify({ mcpServers: servers }), strict: true, servers };
}

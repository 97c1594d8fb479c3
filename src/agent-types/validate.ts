/**
 * Turn parsed frontmatter into an AgentDefinition, checking every field's type. The first bad
 * field makes the file an error (named with its line); unknown fields are warnings, so Claude
 * Code's own agent files keep working and typos still get noticed.
 */
import path from 'node:path';
import { parseOnStop } from '../config/config.js';
import {
  PERMISSION_MODES,
  RUNTIMES,
  SANDBOX_MODES,
  type OnStopPrompt,
  type RuntimeName,
  type SandboxMode,
} from '../config/schema.js';
import { PRIORITY_NAMES, type PriorityName } from '../core/priority.js';
import type { Frontmatter } from './frontmatter.js';
import {
  REASONING_EFFORTS,
  type AgentDefinition,
  type AgentMcpServers,
  type AgentSource,
  type McpServerConfig,
  type ReasoningEffort,
} from './types.js';

export class FieldError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`field '${field}': ${problem}`);
  }
}

const KLAUDE_FIELDS = [
  'name',
  'description',
  'model',
  'reasoningEffort',
  'runtime',
  'allowedAgents',
  'mcpServers',
  'inheritProjectMcps',
  'inheritParentMcps',
  'outputDir',
  'color',
  'tools',
  'disallowedTools',
  'permissionMode',
  'onStop',
  'worktree',
  'budgetUsd',
  'sandbox',
  'skill',
  'priority',
] as const;
/** Claude Code agent-file fields klaude accepts and does not use. */
const CLAUDE_CODE_FIELDS = [
  'maxTurns',
  'skills',
  'hooks',
  'memory',
  'background',
  'isolation',
  'disabled',
  'effort',
  'initialPrompt',
];
const KNOWN = new Set<string>([...KLAUDE_FIELDS, ...CLAUDE_CODE_FIELDS]);

/** Agent type names are typed on command lines: no spaces or slashes, no leading dash. */
const NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_.:-]*$/;

export function describeValue(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  if (typeof v === 'string') return `"${v.length > 40 ? `${v.slice(0, 40)}…` : v}"`;
  return String(v);
}

function str(data: Record<string, unknown>, field: string): string | undefined {
  const v = data[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new FieldError(field, `must be a string, got ${describeValue(v)}`);
  return v;
}

function nonEmpty(data: Record<string, unknown>, field: string): string | undefined {
  const v = str(data, field);
  if (v !== undefined && v.trim() === '') throw new FieldError(field, 'must not be empty');
  return v?.trim();
}

function oneOf<T extends string>(data: Record<string, unknown>, field: string, values: readonly T[]): T | undefined {
  const v = data[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || !values.includes(v as T)) {
    throw new FieldError(field, `must be one of ${values.join(', ')}; got ${describeValue(v)}`);
  }
  return v as T;
}

/** `sandbox: auto | on | off` (true/false read as on/off). */
function sandboxField(data: Record<string, unknown>): SandboxMode | undefined {
  const v = data.sandbox;
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  return oneOf<SandboxMode>(data, 'sandbox', SANDBOX_MODES);
}

function bool(data: Record<string, unknown>, field: string, dflt: boolean): boolean {
  const v = data[field];
  if (v === undefined) return dflt;
  if (typeof v !== 'boolean') throw new FieldError(field, `must be true or false, got ${describeValue(v)}`);
  return v;
}

/** `budgetUsd: 2.5` (or `"$2.50"`): a spend limit in USD, more than 0. */
function budget(data: Record<string, unknown>): number | undefined {
  const v = data.budgetUsd;
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^\s*\$?\d/.test(v) ? Number(v.trim().replace(/^\$/, '')) : v;
  if (typeof n !== 'number' || !Number.isFinite(n) || n <= 0)
    throw new FieldError('budgetUsd', `must be an amount in USD more than 0, got ${describeValue(v)}`);
  return n;
}

/** `skill: deploy`: the Claude Code skill the agent runs (`klaude start --skill`); checked when it starts. */
function skillName(data: Record<string, unknown>): string | undefined {
  const v = nonEmpty(data, 'skill');
  if (v !== undefined && !/^[\w.:-]+$/.test(v))
    throw new FieldError(
      'skill',
      `must be a skill's name (letters, digits, '_', '.', ':', '-'), got ${describeValue(v)}`,
    );
  return v;
}

function stringList(data: Record<string, unknown>, field: string): string[] | undefined {
  const v = data[field];
  if (v === undefined) return undefined;
  if (!Array.isArray(v)) throw new FieldError(field, `must be a list of strings, got ${describeValue(v)}`);
  return v.map((item, i) => {
    if (typeof item !== 'string' || item.trim() === '') {
      throw new FieldError(field, `item ${i + 1} must be a non-empty string, got ${describeValue(item)}`);
    }
    return item.trim();
  });
}

/** Split `Read, Grep, Bash(git add:*)` on commas outside parentheses. */
export function splitToolList(s: string): string[] {
  // Most items have no comma, most lists no parentheses: no walk through the characters (150
  // agent files: a tenth of reading them).
  if (!s.includes(',')) {
    const t = s.trim();
    return t === '' ? [] : [t];
  }
  if (!s.includes('(') && !s.includes(')'))
    return s
      .split(',')
      .map((t) => t.trim())
      .filter((t) => t !== '');
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out.map((t) => t.trim()).filter((t) => t !== '');
}

/** Claude Code's `tools` / `disallowedTools`: a comma list in one string, or a list (items may be comma lists too). */
function toolList(data: Record<string, unknown>, field: string): string[] | undefined {
  const v = data[field];
  if (v === undefined) return undefined;
  if (typeof v === 'string') return splitToolList(v);
  if (!Array.isArray(v))
    throw new FieldError(field, `must be a comma-separated string or a list of tool names, got ${describeValue(v)}`);
  return v.flatMap((item, i) => {
    if (typeof item !== 'string')
      throw new FieldError(field, `item ${i + 1} must be a tool name, got ${describeValue(item)}`);
    return splitToolList(item);
  });
}

function serverConfig(field: string, name: string, v: unknown): McpServerConfig {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) {
    throw new FieldError(
      field,
      `server '${name}' must be a mapping (command/args/env or type/url), got ${describeValue(v)}`,
    );
  }
  const cfg = v as Record<string, unknown>;
  if (typeof cfg.command !== 'string' && typeof cfg.url !== 'string') {
    throw new FieldError(field, `server '${name}' needs a 'command' (stdio) or a 'url' (http/sse)`);
  }
  if (cfg.args !== undefined && !(Array.isArray(cfg.args) && cfg.args.every((a) => typeof a === 'string'))) {
    throw new FieldError(field, `server '${name}': 'args' must be a list of strings`);
  }
  if (cfg.type !== undefined && typeof cfg.type !== 'string')
    throw new FieldError(field, `server '${name}': 'type' must be a string`);
  return cfg;
}

function mcpServers(data: Record<string, unknown>): AgentMcpServers | undefined {
  const field = 'mcpServers';
  const v = data[field];
  if (v === undefined) return undefined;
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const inline: Record<string, McpServerConfig> = {};
    for (const [name, cfg] of Object.entries(v)) inline[name] = serverConfig(field, name, cfg);
    return { pick: null, inline };
  }
  if (!Array.isArray(v)) {
    throw new FieldError(
      field,
      `must be a list of server names (or {name: config} items) or a mapping of server configs, got ${describeValue(v)}`,
    );
  }
  const pick: string[] = [];
  const inline: Record<string, McpServerConfig> = {};
  v.forEach((item, i) => {
    if (typeof item === 'string' && item.trim() !== '') pick.push(item.trim());
    else if (item !== null && typeof item === 'object' && !Array.isArray(item) && Object.keys(item).length === 1) {
      const [name, cfg] = Object.entries(item)[0]!;
      inline[name] = serverConfig(field, name, cfg);
    } else {
      throw new FieldError(
        field,
        `item ${i + 1} must be a server name or a one-key {name: config} mapping, got ${describeValue(item)}`,
      );
    }
  });
  return { pick, inline };
}

function onStop(data: Record<string, unknown>): OnStopPrompt[] | undefined {
  if (data.onStop === undefined) return undefined;
  try {
    return parseOnStop(data.onStop, 'the list');
  } catch (e) {
    throw new FieldError('onStop', (e as Error).message);
  }
}

function outputDir(data: Record<string, unknown>): string | undefined {
  const v = nonEmpty(data, 'outputDir');
  if (v === undefined) return undefined;
  if (path.isAbsolute(v) || /^[A-Za-z]:[\\/]/.test(v))
    throw new FieldError('outputDir', `must be a relative path (under .claude/), got ${describeValue(v)}`);
  const norm = path.posix.normalize(v.replace(/\\/g, '/')).replace(/\/+$/, '');
  if (norm === '..' || norm.startsWith('../') || norm === '.') {
    throw new FieldError('outputDir', `must name a directory inside .claude/, got ${describeValue(v)}`);
  }
  return norm;
}

export function suggestField(key: string): string | undefined {
  const lower = key.toLowerCase();
  let best: { name: string; d: number } | undefined;
  for (const k of KNOWN) {
    const d = k.toLowerCase() === lower ? 0 : editDistance(lower, k.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { name: k, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++)
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}

export interface ValidatedFile {
  def: AgentDefinition;
  /** Unknown fields (with a suggestion when one is close). */
  warnings: { field: string; message: string }[];
}

/** Throws FieldError for the first bad field. */
export function toDefinition(fm: Frontmatter, file: string, source: AgentSource): ValidatedFile {
  const { data } = fm;
  const fileName = path.basename(file).replace(/\.md$/i, '');
  const given = nonEmpty(data, 'name');
  const name = given ?? fileName;
  if (!NAME_RE.test(name)) {
    const what = given === undefined ? `the file name ${describeValue(name)} (no 'name:' given)` : describeValue(name);
    throw new FieldError(
      'name',
      `${what} is not usable as an agent type: use letters, digits, '_', '.', ':', '-', not starting with '-'`,
    );
  }
  const model = nonEmpty(data, 'model');
  const def: AgentDefinition = {
    name,
    source,
    path: file,
    description: str(data, 'description')?.trim(),
    model,
    reasoningEffort: oneOf<ReasoningEffort>(data, 'reasoningEffort', REASONING_EFFORTS),
    runtime: oneOf<RuntimeName>(data, 'runtime', RUNTIMES),
    allowedAgents: stringList(data, 'allowedAgents'),
    mcpServers: mcpServers(data),
    inheritProjectMcps: bool(data, 'inheritProjectMcps', true),
    inheritParentMcps: bool(data, 'inheritParentMcps', false),
    outputDir: outputDir(data),
    color: nonEmpty(data, 'color'),
    tools: toolList(data, 'tools'),
    disallowedTools: toolList(data, 'disallowedTools'),
    permissionMode: oneOf(data, 'permissionMode', PERMISSION_MODES),
    onStop: onStop(data),
    // Claude Code's own spelling (`isolation: worktree`) means the same.
    worktree:
      data.worktree === undefined ? (data.isolation === 'worktree' ? true : undefined) : bool(data, 'worktree', false),
    budgetUsd: budget(data),
    sandbox: sandboxField(data),
    skill: skillName(data),
    priority: oneOf<PriorityName>(data, 'priority', PRIORITY_NAMES),
    instructions: fm.body,
  };
  for (const k of Object.keys(def) as (keyof AgentDefinition)[]) if (def[k] === undefined) delete def[k];
  const warnings = Object.keys(data)
    .filter((k) => !KNOWN.has(k))
    .map((field) => {
      const near = suggestField(field);
      return { field, message: `unknown field '${field}' (ignored${near ? `; did you mean '${near}'?` : ''})` };
    });
  return { def, warnings };
}

/** What an agent type is, once its `.claude/agents/<name>.md` file has been read and checked. */
import type { OnStopPrompt, RuntimeName, SandboxMode } from '../config/schema.js';
import type { PriorityName } from '../core/priority.js';

export const REASONING_EFFORTS = ['low', 'medium', 'high'] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

/** Where a definition came from; also its precedence (project > user > built-in). */
export type AgentSource = 'project' | 'user' | 'builtin';

/** One MCP server's config as Claude Code writes it (`{command,args,env}` or `{type,url,headers}`). */
export type McpServerConfig = Record<string, unknown>;

/**
 * The `mcpServers` field. A list says exactly which servers the agent gets: its strings pick
 * servers by name from the project-visible set, its `{name: config}` items define servers inline.
 * A map (`{name: config, …}`) only adds inline servers to what the agent inherits.
 */
export interface AgentMcpServers {
  /** Server names to pick; `null` when the field was a map (nothing picked, inheritance applies). */
  pick: string[] | null;
  inline: Record<string, McpServerConfig>;
}

export interface AgentDefinition {
  /** The agent type: `name:` from the frontmatter, else the file name without `.md`. */
  name: string;
  source: AgentSource;
  /** Absolute path of the file; null for the built-in `general`. */
  path: string | null;
  description?: string;
  /** Model for the agent; `inherit` (Claude Code's spelling) means "no --model". */
  model?: string;
  reasoningEffort?: ReasoningEffort;
  runtime?: RuntimeName;
  /** Agent types this agent may start; undefined = any. */
  allowedAgents?: string[];
  mcpServers?: AgentMcpServers;
  /** Give the agent the MCP servers of the project (local > project > user scopes). Default true. */
  inheritProjectMcps: boolean;
  /** Give the agent its parent session's MCP servers. Default false. */
  inheritParentMcps: boolean;
  /** Save the final text under `<project>/.claude/<outputDir>/` (normalised, relative, inside .claude). */
  outputDir?: string;
  color?: string;
  /** Claude Code's `tools` allowlist (names or rules such as `Bash(git *)`, `mcp__server__tool`). */
  tools?: string[];
  /** Claude Code's `disallowedTools`. */
  disallowedTools?: string[];
  /** Claude Code's `permissionMode` (passed on by the runtime; it owns `--permission-mode`). */
  permissionMode?: string;
  /** On-stop prompts of this agent type (added to config `agents.onStop`; same artifact name: this one wins). */
  onStop?: OnStopPrompt[];
  /** Run in a git worktree of its own (`klaude start --worktree`); undefined = config agents.worktree. */
  worktree?: boolean;
  /** Spend limit in USD of each agent of this type and its sub-agents (`--budget` wins; else config agents.budgetUsd). */
  budgetUsd?: number;
  /** Where its commands run (`klaude start --sandbox/--no-sandbox` wins; else config agents.sandbox): docs/sandbox.md. */
  sandbox?: SandboxMode;
  /** A Claude Code skill each agent of this type runs, its prompt being the skill's arguments (`--skill` wins). */
  skill?: string;
  /** Run-queue priority of each agent of this type (`klaude start --priority` wins; default normal). */
  priority?: PriorityName;
  /** The markdown body, appended to Claude Code's system prompt. Empty when the body is. */
  instructions: string;
}

export interface AgentProblem {
  /** The file with the problem. */
  path: string;
  /** 1-based line in the file, when known. */
  line?: number;
  /** `field 'model': must be a string, got 42`, `invalid YAML: …`. */
  message: string;
  /** `error`: the file was skipped. `warning`: loaded anyway (e.g. an unknown field). */
  severity: 'error' | 'warning';
  source: Exclude<AgentSource, 'builtin'>;
  /** The agent type the file would define (its `name:` if readable, else the file name). */
  name: string;
}

export interface AgentDefinitions {
  /** Sorted by name; project over user over built-in on a name clash. */
  agents: AgentDefinition[];
  problems: AgentProblem[];
}

export interface AgentLookupOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** `path:line: message`, the one-line form used in listings and errors. */
export function formatProblem(p: Pick<AgentProblem, 'path' | 'line' | 'message'>): string {
  return `${p.path}${p.line ? `:${p.line}` : ''}: ${p.message}`;
}

/** The MCP servers an agent runs with, resolved from its definition and Claude Code's scopes (mcp.ts). */
export interface AgentMcp {
  /** JSON for `--mcp-config` (`{"mcpServers":{…}}`): every server the agent gets, none when empty. */
  mcpConfigJson: string;
  /** Pass `--strict-mcp-config`: claude loads no server of its own (mcp.ts says why it is always true). */
  strict: boolean;
  /** The servers the agent ends up with (record it: it is what this agent's children inherit as parent servers). */
  servers: Record<string, McpServerConfig>;
}

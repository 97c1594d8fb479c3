/**
 * What an agent type means for a launch: the definition (`.claude/agents/<type>.md`, project over
 * user, or the built-in `general`; src/agent-types) turned into runtime-neutral launch settings, with
 * the MCP servers resolved (local > approved project > user, inheritance flags) and the parent's
 * `allowedAgents` checked. Stored in the session's metadata, so a resume launches the same way.
 */
import { builtinGeneral, isAgentAllowed, resolveAgentMcp, resolveAgentType as resolveDefinition } from './index.js';
import type { AgentDefinition } from './types.js';
import type { OnStopPrompt, RuntimeName, SandboxMode } from '../config/schema.js';
import type { PriorityName } from '../core/priority.js';
import { KlaudeError } from '../lib/errors.js';
import { projectRoot } from '../config/paths.js';
import { resolveOutputDir } from './output-dir.js';
import type { SessionRow } from '../db/repos/sessions.js';
import type { SandboxState } from '../core/sandbox-state.js';

export interface AgentTypeConfig {
  type: string;
  /** Markdown body of the definition, appended to the CLI's system prompt. */
  instructions: string | null;
  model: string | null;
  runtime: RuntimeName | null;
  effort: string | null;
  /** Pre-approved tool rules for the CLI (`--allowedTools`). */
  allowedTools: string[];
  /** The built-in tools the agent has (definition `tools:`); null = the CLI's default set. */
  tools: string[] | null;
  disallowedTools: string[];
  permissionMode: string | null;
  /** MCP config JSON (`{"mcpServers":{…}}`) for `--mcp-config`; null = not resolved yet (launchMcp does it). */
  mcpConfig: string | null;
  /** Only the servers in mcpConfig; false only in metadata recorded before klaude resolved project approval. */
  mcpStrict: boolean;
  /** The MCP servers the agent ends up with: what its own children inherit with `inheritParentMcps`. */
  mcpServers: Record<string, unknown>;
  /** Save the final text under `<project>/.claude/<outputDir>/`. */
  outputDir: string | null;
  /** The definition's on-stop prompts (config `agents.onStop` is added at the end of the run). */
  onStop?: OnStopPrompt[];
  /** The definition's `worktree:`; null = not said (the flag or config agents.worktree decides). */
  worktree: boolean | null;
  /** The definition's `budgetUsd:`; null = not said (the flag or config agents.budgetUsd decides). */
  budgetUsd?: number | null;
  /** The definition's `sandbox:`; null = not said (the flag or config agents.sandbox decides). */
  sandbox?: SandboxMode | null;
  /** The definition's `skill:` (`--skill` wins); null = none. */
  skill?: string | null;
  /** The definition's `priority:`; null = not said (the flag decides, else normal). */
  priority?: PriorityName | null;
}

export interface AgentTypeContext {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** The session starting the agent: its type (for `allowedAgents`) and recorded MCP servers. */
  parent?: { type: string; metadata: Record<string, unknown> | null } | null;
}

export function plainAgentType(type: string): AgentTypeConfig {
  return {
    type,
    instructions: null,
    model: null,
    runtime: null,
    effort: null,
    allowedTools: [],
    tools: null,
    disallowedTools: [],
    permissionMode: null,
    mcpConfig: null,
    mcpStrict: false,
    mcpServers: {},
    outputDir: null,
    worktree: null,
  };
}

const isMcpTool = (t: string): boolean => t.startsWith('mcp__');
const baseName = (t: string): string => t.replace(/\(.*$/s, '').trim();

/** A parent agent whose definition limits which types it may start. */
function checkAllowed(type: string, ctx: AgentTypeContext): void {
  const parentType = ctx.parent?.type;
  if (!parentType || parentType === 'tui') return;
  let parentDef: AgentDefinition;
  try {
    parentDef = resolveDefinition(parentType, { cwd: ctx.cwd, env: ctx.env });
  } catch {
    return; // the parent's definition is gone or broken: nothing to enforce
  }
  if (!isAgentAllowed(parentDef, type)) {
    throw new KlaudeError('E_USAGE', `a '${parentType}' agent may not start '${type}' agents`, {
      hint: `allowed: ${(parentDef.allowedAgents ?? []).join(', ') || 'none'} (allowedAgents in ${parentDef.path ?? parentType})`,
    });
  }
}

/**
 * The launch settings of an agent type. Throws E_USAGE for an unknown type (listing the known
 * ones) and E_AGENT_DEFINITION for a broken definition or MCP reference.
 */
export async function resolveAgentType(type: string, ctx: AgentTypeContext): Promise<AgentTypeConfig> {
  checkAllowed(type, ctx);
  const def = resolveDefinition(type, { cwd: ctx.cwd, env: ctx.env });
  // Refused here, at start, as well as at the write: a symlink taking it out of .claude/ is known now.
  if (def.outputDir) resolveOutputDir(projectRoot(ctx.cwd), def.outputDir);
  const parentServers = (ctx.parent?.metadata?.agent as { mcpServers?: Record<string, unknown> } | undefined)
    ?.mcpServers;
  const mcp = resolveAgentMcp(def, { cwd: ctx.cwd, env: ctx.env, parentServers });
  const tools = def.tools
    ? [
        ...new Set(
          def.tools
            .filter((t) => !isMcpTool(t))
            .map(baseName)
            .filter((t) => t !== ''),
        ),
      ]
    : null;
  return {
    type,
    instructions: def.instructions.trim() || null,
    model: def.model && def.model !== 'inherit' ? def.model : null,
    runtime: def.runtime ?? null,
    effort: def.reasoningEffort ?? null,
    allowedTools: (def.tools ?? []).filter((t) => isMcpTool(t) || t.includes('(')),
    tools,
    disallowedTools: def.disallowedTools ?? [],
    permissionMode: def.permissionMode ?? null,
    mcpConfig: mcp.mcpConfigJson,
    mcpStrict: mcp.strict,
    mcpServers: mcp.servers,
    outputDir: def.outputDir ?? null,
    ...(def.onStop ? { onStop: def.onStop } : {}),
    worktree: def.worktree ?? null,
    budgetUsd: def.budgetUsd ?? null,
    sandbox: def.sandbox ?? null,
    skill: def.skill ?? null,
    priority: def.priority ?? null,
  };
}

/** What the runtime reads from `sessions.metadata` on every launch (start and resume). */
export interface AgentLaunchMetadata {
  cwd: string;
  projectRoot: string;
  agent: Omit<AgentTypeConfig, 'type' | 'runtime' | 'model'>;
  /** Where its commands run, decided at its start (agent-ops/sandbox-plan.ts); absent: unsandboxed (older klaude). */
  sandbox?: SandboxState;
}

export function launchMetadata(s: SessionRow): AgentLaunchMetadata | null {
  const m = s.metadata as Partial<AgentLaunchMetadata> | null;
  return m && typeof m.cwd === 'string' && m.agent ? (m as AgentLaunchMetadata) : null;
}

const objectAt = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

/**
 * The MCP servers a claude launch passes, resolved now where the metadata left them to claude: no
 * metadata (a root session driven headless) or metadata of an older klaude (`mcpConfig` null:
 * claude's own scopes; not strict: added to them). The claude adapter is always strict, so
 * those get the scopes under the approval rule, plus what was added. Unreadable files: none.
 */
export function launchMcp(meta: AgentLaunchMetadata, env: NodeJS.ProcessEnv, runtime: string): AgentLaunchMetadata {
  const a = meta.agent;
  // Other CLIs load no `.mcp.json`: for them null means "none added".
  if (runtime !== 'claude' || (a.mcpConfig !== null && a.mcpStrict !== false)) return meta;
  const attempt = (f: () => Record<string, unknown>): Record<string, unknown> => {
    try {
      return f();
    } catch {
      return {}; // fail closed: fewer servers rather than claude's unfiltered own
    }
  };
  const added = attempt(() => (a.mcpConfig ? objectAt(objectAt(JSON.parse(a.mcpConfig)).mcpServers) : {}));
  const scopes = attempt(() => resolveAgentMcp(builtinGeneral(), { cwd: meta.cwd, env }).servers);
  const servers = { ...scopes, ...added };
  return {
    ...meta,
    agent: { ...a, mcpConfig: JSON.stringify({ mcpServers: servers }), mcpStrict: true, mcpServers: servers },
  };
}

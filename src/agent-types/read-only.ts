/**
 * A reviewer's launch settings (`klaude review`): whatever its agent type says, it can change
 * nothing, by its own CLI's means. claude gets only the read tools (`--tools=Read,Grep,Glob`, so
 * Edit, Write and Bash do not exist for it), pre-allowed, in `dontAsk` mode (it never waits on a
 * permission request) and no MCP server; every other CLI gets the `plan` mode, which each adapter
 * maps to its read-only setting (codex `sandbox_mode = "read-only"`, gemini `--approval-mode plan`,
 * opencode's plan agent, cursor `--mode plan`). No worktree (it reads the origin's), no on-stop
 * prompts, no output file.
 */
import type { RuntimeName } from '../config/schema.js';
import type { AgentTypeConfig } from './launch-settings.js';

/** The tools a claude reviewer has. */
export const REVIEW_TOOLS = ['Read', 'Grep', 'Glob'] as const;

export function readOnlyAgent(agent: AgentTypeConfig, runtime: RuntimeName): AgentTypeConfig {
  const common = {
    ...agent,
    disallowedTools: [],
    mcpConfig: JSON.stringify({ mcpServers: {} }),
    mcpStrict: true,
    mcpServers: {},
    outputDir: null,
    onStop: [],
    worktree: false,
  };
  if (runtime === 'claude')
    return { ...common, tools: [...REVIEW_TOOLS], allowedTools: [...REVIEW_TOOLS], permissionMode: 'dontAsk' };
  return { ...common, tools: null, allowedTools: [], permissionMode: 'plan' };
}

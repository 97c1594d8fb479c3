/**
 * The claude flags an agent definition adds to a headless run (checked against claude 2.1.197).
 *
 * Every value flag is written `--flag=value`: `--tools`, `--allowedTools`, `--disallowedTools` and
 * `--mcp-config` are variadic, and in the `--flag value` form they swallow the arguments after
 * them (a prompt becomes a tool name); the `=` form takes exactly one value. Repeated
 * `--allowedTools=`/`--disallowedTools=` flags add up, so the runtime may pass its own as well.
 *
 * `tools` (Claude Code's allowlist) maps to:
 *   - `--tools=<names>`: the built-in tools the agent has (rule patterns reduced to the tool name;
 *     `tools: []` gives none). It does not touch MCP tools: those come from the MCP servers
 *     the agent gets (`mcpServers`, `inheritProjectMcps`, `inheritParentMcps`);
 *   - `--allowedTools=<entries>`: entries that are rules (`Bash(git *)`) or MCP tools
 *     (`mcp__server__tool`) are pre-approved, since a headless agent cannot ask.
 * The MCP servers go in as `--mcp-config=<the resolved set> --strict-mcp-config` (mcp.ts).
 */
import type { AgentDefinition, AgentMcp } from './types.js';

export interface AgentClaudeArgsOptions {
  /** Overrides the definition's model (e.g. `klaude start --model`). */
  model?: string;
  /** More system-prompt text, appended after the definition's instructions (claude takes one --append-system-prompt). */
  appendSystemPrompt?: string;
}

const isMcpTool = (t: string): boolean => t.startsWith('mcp__');
const baseName = (t: string): string => t.replace(/\(.*$/s, '').trim();

export function agentClaudeArgs(
  def: AgentDefinition,
  mcp: Pick<AgentMcp, 'mcpConfigJson' | 'strict'> | null,
  opts: AgentClaudeArgsOptions = {},
): string[] {
  const args: string[] = [];
  const model = opts.model ?? (def.model && def.model !== 'inherit' ? def.model : undefined);
  if (model) args.push(`--model=${model}`);
  if (def.reasoningEffort) args.push(`--effort=${def.reasoningEffort}`);

  const prompt = [def.instructions, opts.appendSystemPrompt]
    .map((s) => s?.trim() ?? '')
    .filter((s) => s !== '')
    .join('\n\n');
  if (prompt) args.push(`--append-system-prompt=${prompt}`);

  if (def.tools) {
    const builtins = [
      ...new Set(
        def.tools
          .filter((t) => !isMcpTool(t))
          .map(baseName)
          .filter((t) => t !== ''),
      ),
    ];
    args.push(`--tools=${builtins.join(',')}`);
    const approved = def.tools.filter((t) => isMcpTool(t) || t.includes('('));
    if (approved.length) args.push(`--allowedTools=${approved.join(',')}`);
  }
  if (def.disallowedTools?.length) args.push(`--disallowedTools=${def.disallowedTools.join(',')}`);

  if (mcp?.mcpConfigJson) args.push(`--mcp-config=${mcp.mcpConfigJson}`);
  if (mcp?.strict) args.push('--strict-mcp-config');
  return args;
}

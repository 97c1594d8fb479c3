/** Agent definitions and MCP resolution: what the runtime and `klaude start` use. */
export * from './types.js';
export {
  BUILTIN_AGENT_TYPE,
  agentOutputDir,
  builtinGeneral,
  clearAgentDefinitionCache,
  isAgentAllowed,
  loadAgentDefinitions,
  resolveAgentType,
} from './definitions.js';
export {
  loadMcpServers,
  resolveAgentMcp,
  type AgentMcp,
  type AgentMcpOptions,
  type McpScope,
  type McpServerEntry,
} from './mcp.js';
export { agentClaudeArgs, type AgentClaudeArgsOptions } from './claude-args.js';
export { claudeConfigDir, claudeJsonPath, projectAgentsDir, userAgentsDir } from '../claude/config-dir.js';

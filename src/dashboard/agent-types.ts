/** The agent types the dashboard's start dialog offers: the same definitions `klaude start` uses. */
import { clearAgentDefinitionCache, formatProblem, loadAgentDefinitions } from '../agent-types/index.js';
import type { AgentChoice } from '../ui/state/ui-state.js';

export function agentChoices(cwd: string, env: NodeJS.ProcessEnv): { choices: AgentChoice[]; problems: string[] } {
  // A long-lived dashboard: re-read, so files added since the last `s` show up.
  clearAgentDefinitionCache();
  const { agents, problems } = loadAgentDefinitions({ cwd, env });
  return {
    choices: agents.map((a) => ({ name: a.name, description: a.description ?? '', source: a.source })),
    problems: problems.filter((p) => p.severity === 'error').map((p) => formatProblem(p)),
  };
}

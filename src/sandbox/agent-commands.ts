/**
 * The commands an agent's klaude has (docs/sandbox.md): its channel runs these and nothing else.
 * The person's — approve, deny, budget, archive, delete, merge, web, pin, rename, fork, worktree,
 * config, doctor, talk, ui, and klaude itself — are not here, so no request can reach them.
 */
export const AGENT_COMMANDS = [
  'start',
  'message',
  'wait',
  'watch',
  'logs',
  'read',
  'sessions',
  'status',
  'checkout',
  'interrupt',
  'diff',
  'agents',
] as const;

/**
 * With config `agents.approvals: parent` the person lets a parent answer its sub-agents' permission
 * requests: then, and only for its own sub-agents, these are an agent's commands too.
 */
export const PARENT_ANSWER_COMMANDS = ['approve', 'deny'] as const;

/** What the channel also passes on: help and the version. */
export const AGENT_INFO_ARGS = ['--help', '-h', 'help', '--version', '-v', '-V', 'version'] as const;

export function isAgentCommand(word: string | undefined, parentAnswers = false): boolean {
  if (word === undefined) return false;
  if (parentAnswers && (PARENT_ANSWER_COMMANDS as readonly string[]).includes(word)) return true;
  return (AGENT_COMMANDS as readonly string[]).includes(word);
}

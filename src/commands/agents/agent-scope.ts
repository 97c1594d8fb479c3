/**
 * The commands a sandboxed agent's klaude has, and the sessions they may name (docs/sandbox.md,
 * "The agent's klaude"). The agent's channel (runtime/agent-channel.ts) runs only these commands,
 * each as a klaude of its own with `KLAUDE_AGENT_SCOPE=<agent>`; that klaude checks here, before the
 * command runs, that every session it names is the agent's own or under it. The person's commands
 * (approve, deny, budget, archive, delete, merge, web, …) are not in the list: the channel has no
 * way to run them, whatever the agent sends.
 */
import { openFastDb } from '../../db/fast.js';
import { loadConfig } from '../../config/config.js';
import { klaudeHome } from '../../config/paths.js';
import { resolveSession } from '../../db/repos/resolve.js';
import { sessionById } from '../../db/repos/session-row.js';
import { isInSubtree } from '../../db/repos/subtree.js';
import type { HasSqlite } from '../../db/connection.js';
import { shortId } from '../../core/ids.js';
import { KlaudeError } from '../../lib/errors.js';
import { SCOPE_ENV } from '../../sandbox/channel-paths.js';
import type { Flags } from '../cli/types.js';
import { AGENT_COMMANDS, isAgentCommand } from '../../sandbox/agent-commands.js';

/** Which positional arguments name sessions, and whether the agent itself may be one (else only its sub-agents). */
const SESSION_ARGS: Record<string, { pick: (input: string[]) => string[]; self: boolean }> = {
  logs: { pick: (i) => i.slice(0, 1), self: true },
  read: { pick: (i) => i.slice(0, 1), self: true },
  diff: { pick: (i) => i.slice(0, 1), self: true },
  wait: { pick: (i) => i, self: false },
  watch: { pick: (i) => i, self: true },
  message: { pick: (i) => i.slice(0, 1), self: false },
  approve: { pick: (i) => i.slice(0, 1), self: false },
  deny: { pick: (i) => i.slice(0, 1), self: false },
  interrupt: { pick: (i) => i, self: false },
  checkout: { pick: (i) => i.slice(0, 1), self: false },
};

export function agentScope(env: NodeJS.ProcessEnv): string | null {
  return env[SCOPE_ENV] || null;
}

/** approve/deny: an agent's only under config `agents.approvals: parent` (read only for them). */
function parentAnswers(command: string, env: NodeJS.ProcessEnv): boolean {
  if (command !== 'approve' && command !== 'deny') return false;
  return loadConfig(klaudeHome(env)).config['agents.approvals'] === 'parent';
}

const refuse = (message: string, hint: string): KlaudeError => new KlaudeError('E_AGENT_CHANNEL', message, { hint });

/** Throws unless `command` with these arguments is an agent's, on sessions of the agent `scope`. */
export function checkAgentScope(
  scope: string,
  command: string,
  input: string[],
  flags: Flags,
  env: NodeJS.ProcessEnv,
): void {
  if (!isAgentCommand(command, parentAnswers(command, env)))
    throw refuse(
      `\`klaude ${command}\` is the person's command, not an agent's`,
      `an agent's klaude has ${AGENT_COMMANDS.join(', ')}; ask the person to run it`,
    );
  if (command === 'start' && flags.sandbox === false)
    throw refuse("a sandboxed agent's sub-agents are sandboxed too", 'start it without --no-sandbox');
  if (command === 'start' && flags.bypassWithoutSandbox === true)
    throw refuse('--bypass-without-sandbox is the person’s to give', 'start it without that flag');
  if (flags.projects === true)
    throw refuse("an agent's klaude lists its own project's sessions", `klaude ${command} without --projects`);
  if (command === 'checkout' && input.length === 0)
    throw refuse('name one of your sub-agents to check out', 'klaude checkout <id>');
  const args = SESSION_ARGS[command];
  if (!args) return;
  const names = args.pick(input);
  if (names.length === 0) return;
  const db = openFastDb(klaudeHome(env));
  if (!db) throw refuse('klaude has no sessions yet', 'klaude start <type> "<prompt>"');
  try {
    for (const name of names) checkOne(db, scope, name, args.self);
  } finally {
    db.close();
  }
}

function checkOne(db: HasSqlite, scope: string, name: string, self: boolean): void {
  const projectId = sessionById(db, scope)?.projectId;
  let id: string;
  try {
    id = resolveSession(db, name, projectId ? { projectId } : {}).id;
  } catch (e) {
    if (!(e instanceof KlaudeError) || e.code !== 'E_SESSION_NOT_FOUND') throw e;
    id = resolveSession(db, name).id;
  }
  const mine = id === scope ? self : isInSubtree(db, scope, id);
  if (!mine)
    throw refuse(
      `${shortId(id)} is not ${self ? 'this agent or one of its sub-agents' : 'one of this agent’s sub-agents'}`,
      '`klaude sessions` lists yours',
    );
}

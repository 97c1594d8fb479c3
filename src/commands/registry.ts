/**
 * The command table. Only specs live here; each command's code is behind a dynamic
 * import so `klaude hook …` (run by Claude Code after every tool call) loads nothing
 * it doesn't need.
 */
import type { CommandSpec, FlagSpec } from './types.js';

export const JSON_FLAG: FlagSpec = { type: 'boolean', description: 'print machine-readable JSON' };

const INSTANCE_FLAG: FlagSpec = {
  type: 'string',
  valueName: 'id',
  description: 'talk to this supervisor (when several run in the project)',
};

export const COMMANDS: CommandSpec[] = [
  {
    name: '',
    summary: 'run Claude Code in this project under klaude (foreground claude, checkout, agents)',
    usage: 'klaude [--resume-last | --resume <id>] [-- <claude args>]',
    description: [
      'Starts a supervisor for this project and runs the interactive `claude` in the foreground.',
      'From inside Claude, `klaude checkout <id>` switches the foreground to another session.',
      '',
      'Claude args after `--` are passed on every launch (also after checkout), except:',
      '  --name and a prompt: first launch only;',
      '  --settings: merged with the hook settings klaude injects;',
      '  --resume/-r, --continue/-c, --session-id, --fork-session, --print/-p, --worktree/-w: refused',
      '  (klaude picks the session; use --resume-last, --resume <id> or checkout).',
    ].join('\n'),
    flags: {
      resumeLast: { type: 'boolean', description: 'resume the newest root session of this project instead of starting fresh' },
      resume: { type: 'string', valueName: 'id', description: 'resume this session (klaude id, prefix/suffix, or Claude id)' },
    },
    examples: ['klaude', 'klaude -- --model sonnet', 'klaude --resume-last'],
    load: () => import('./root.js'),
  },
  {
    name: 'checkout',
    summary: "switch the foreground Claude to a session's conversation (no id: back to the parent)",
    usage: 'klaude checkout [id] [--timeout <seconds>] [--json]',
    description:
      "Stops the foreground claude and resumes the target's Claude session in its place.\nThe id may be a klaude id, a unique prefix/suffix (4+ chars), or a Claude session id.",
    flags: {
      timeout: { type: 'number', valueName: 'seconds', description: "how long to wait for a starting target's Claude session (default switch.targetTimeoutSeconds)" },
      instance: INSTANCE_FLAG,
      json: JSON_FLAG,
    },
    maxArgs: 1,
    examples: ['klaude checkout 7XQ2', 'klaude checkout'],
    load: () => import('./checkout.js'),
  },
  {
    name: 'status',
    summary: 'show the klaude supervisors running in this project and what they run',
    usage: 'klaude status [--json]',
    flags: { json: JSON_FLAG },
    maxArgs: 0,
    load: () => import('./status.js'),
  },
  {
    name: 'instances',
    summary: 'list supervisor instances of this project from the records (stale ones marked)',
    usage: 'klaude instances [--all] [--json]',
    flags: { all: { type: 'boolean', description: 'include exited and stale instances' }, json: JSON_FLAG },
    maxArgs: 0,
    load: () => import('./instances.js'),
  },
  {
    name: 'config',
    summary: 'print the effective configuration (file values over defaults)',
    usage: 'klaude config [--json] [--path] [--keys]',
    description:
      'Reads <home>/config.yaml (home = $KLAUDE_HOME or ~/.klaude), validates it and prints every key with its value and where it came from.',
    flags: {
      json: JSON_FLAG,
      path: { type: 'boolean', description: 'print only the path of config.yaml' },
      keys: { type: 'boolean', description: 'list every key with its type, default and meaning' },
    },
    maxArgs: 0,
    load: () => import('./config.js'),
  },
  {
    name: 'hook',
    summary: 'record a Claude Code hook event (injected by klaude; payload JSON on stdin)',
    usage: 'klaude hook <session-start|session-end|user-prompt-submit|stop|notification|post-tool-use>',
    description: 'Outside klaude (no KLAUDE_SESSION_ID) it does nothing. It never fails Claude: errors go to the klaude log.',
    flags: {},
    plumbing: true,
    minArgs: 1,
    maxArgs: 1,
    load: () => import('./hook.js'),
  },
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

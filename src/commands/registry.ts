/**
 * The command table. Only specs live here; each command's code is behind a dynamic
 * import so `klaude hook …` (run by Claude Code after every tool call) loads nothing
 * it doesn't need.
 */
import type { CommandSpec, FlagSpec } from './types.js';

export const JSON_FLAG: FlagSpec = { type: 'boolean', description: 'print machine-readable JSON' };

export const COMMANDS: CommandSpec[] = [
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
];

export function findCommand(name: string): CommandSpec | undefined {
  return COMMANDS.find((c) => c.name === name);
}

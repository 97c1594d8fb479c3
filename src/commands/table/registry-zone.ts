/** The command spec of `klaude zone` (kept apart so registry.ts stays small). */
import { JSON_FLAG } from '../cli/flag-specs.js';
import type { CommandSpec } from '../cli/types.js';

export const ZONE_COMMANDS: CommandSpec[] = [
  {
    name: 'zone',
    summary: 'other machines agents run on, over your own ssh: add, list, check, set up, remove',
    usage:
      'klaude zone add <name> <user@host> <path> [--klaude <cmd>] [--ssh-option <arg>…] | list | check <name> | setup <name> | remove <name> [--json]',
    subcommands: ['add', 'list', 'check', 'setup', 'remove'],
    description: [
      'A zone is another machine where agents run (`klaude start --zone <name>`) in a clone of this project,',
      'reached with your own OpenSSH (your ~/.ssh/config, keys and agent); klaude opens one multiplexed',
      'connection and runs `klaude __zone-serve` inside it — nothing of klaude listens on a port there.',
      'Its agents show here as any agent (marked @<zone>): their logs stream here, their permission requests',
      'are answered here, messages and interrupts go over, `diff` and `merge` fetch their branch over the same',
      'ssh. A dropped connection loses nothing: klaude reconnects (or any klaude command tries at once) and',
      'resumes each log where it stopped; messages sent meanwhile are delivered once.',
      'add: writes zones.<name> to config.yaml (path: the clone over there, `~/` is its home; --klaude: the',
      'command that runs klaude there, default `klaude`). list: the zones, their live agents and links.',
      'check: what the zone lacks (ssh, node, klaude, claude, the clone), each with its fix. setup: pushes this',
      'project there when it has no clone, installs this klaude there (npm pack, then npm install -g --prefix',
      '~/.klaude-zone) when it has none or another version, then checks again. docs/zones.md has the details.',
    ].join('\n'),
    flags: {
      klaude: { type: 'string', valueName: 'cmd', description: 'add: the command that runs klaude on that machine' },
      sshOption: {
        type: 'string',
        isMultiple: true,
        valueName: 'arg',
        description: 'add: one more ssh argument (repeat it: --ssh-option -p --ssh-option 2222)',
      },
      json: JSON_FLAG,
    },
    minArgs: 1,
    maxArgs: 4,
    operands: [['add', 'list', 'check', 'setup', 'remove'], 'text', 'text', 'text'],
    examples: [
      'klaude zone add build me@buildbox ~/src/proj',
      'klaude zone check build',
      'klaude zone setup build',
      'klaude start general "run the slow test suite" --zone build',
      'klaude zone list',
    ],
    load: () => import('../setup/zone.js'),
  },
];

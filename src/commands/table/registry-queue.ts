/** The command spec of `klaude queue` (kept apart so registry.ts stays small). */
import { JSON_FLAG } from '../cli/flag-specs.js';
import type { CommandSpec } from '../cli/types.js';

export const QUEUE_COMMAND: CommandSpec = {
  name: 'queue',
  summary: 'the run queue in the order it starts agents; `queue move <id>` changes an entry’s place or priority',
  usage: 'klaude queue [--json] | klaude queue move <id> --to <n>|--top|--bottom [--priority high|normal|low] [--json]',
  subcommands: ['move'],
  description: [
    'When run limits are set (config agents.maxRunning, runtimes.<name>.maxRunning), agents started beyond',
    'them wait here: higher priority first (`klaude start --priority`, a definition’s priority:), first',
    'come first served within a priority; an agent whose tree is over budget waits without holding up the',
    'others. One queue for every project of this klaude home, as the limits are.',
    'move: --to <n> (1 = next to start), --top or --bottom place it in the whole queue, and it takes the',
    'priority of the entries it lands among (moved above every high one, it becomes high). With',
    '--priority it gets that priority, and --to/--top/--bottom are a place among the entries of that',
    'priority (alone, --priority puts it where its time of queueing puts it in that priority).',
  ].join('\n'),
  flags: {
    to: { type: 'number', valueName: 'n', description: 'move: to this place in the queue (1 = next to start)' },
    top: { type: 'boolean', description: 'move: to the head of the queue' },
    bottom: { type: 'boolean', description: 'move: to the end of the queue' },
    priority: {
      type: 'string',
      valueName: 'level',
      completes: ['high', 'normal', 'low'],
      description: 'move: give it this priority: high, normal or low',
    },
    json: {
      ...JSON_FLAG,
      description:
        'print {running, maxRunning, queue: [{position, id, type, runtime, priority, queuedAt, projectRoot, title, heldFor}]} (move: {id, from, to, priority, was, started})',
    },
  },
  maxArgs: 2,
  operands: [['move'], 'session'],
  examples: [
    'klaude queue',
    'klaude queue move 7XQ2 --top',
    'klaude queue move 7XQ2 --to 2',
    'klaude queue move 7XQ2 --priority low',
  ],
  load: () => import('../agents/run-queue.js'),
};

/** Command specs for reading sessions: sessions, logs, read, watch (kept apart so registry.ts stays small). */
import { JSON_FLAG } from '../cli/flag-specs.js';
import type { CommandSpec } from '../cli/types.js';

/** `logs` and `read` (the design notes' name) are one command: the same text and output flags. */
const LOG_DESCRIPTION = [
  'Assistant text as is, one line per tool call (→ Bash: npm test), results folded (✓ 12 lines),',
  '[UPDATE] lines marked. The id may be a klaude id, a unique prefix/suffix (4+ chars) or a Claude session id.',
  '-f prints the log and follows it until the agent is done (Ctrl-C stops following; the agent keeps running).',
].join('\n');

const LOG_OUTPUT_FLAGS: CommandSpec['flags'] = {
  summary: {
    type: 'boolean',
    shortFlag: 's',
    description: 'only the completion summary: status, files edited/created, final text, cost',
  },
  raw: { type: 'boolean', description: 'the NDJSON event lines as written' },
  lines: {
    type: 'number',
    shortFlag: 'n',
    valueName: 'N',
    description: 'only the last N entries: a message counts once, however it streamed (--raw: the last N lines)',
  },
};

export const LISTING_COMMANDS: CommandSpec[] = [
  {
    name: 'sessions',
    summary: "list this project's sessions as a tree: root sessions and their sub-agents",
    usage: 'klaude sessions [-v] [--all] [--projects] [--json]',
    description: [
      'One row per session: id (last 8 chars; any unique 4+ char prefix/suffix works), status, agent type,',
      'runtime, age, and its title (`klaude rename`, else the first message) → the last assistant text.',
      'Pinned sessions (`klaude pin`) come first. Sessions that ended over 7 days ago and archived ones are',
      'hidden unless --all. --projects lists every project of this klaude home (sessions waiting for you first).',
      "A reviewed session's reviews (`klaude review`) are listed under its row, each with its first five",
      "findings; a reviewer's row says what it reviews and what it found.",
    ].join('\n'),
    flags: {
      verbose: {
        type: 'boolean',
        shortFlag: 'v',
        description: 'add a line per session: Claude/native id, model, pid, cost, log path',
      },
      all: { type: 'boolean', description: 'include archived sessions and ones that ended long ago' },
      projects: {
        type: 'boolean',
        description: 'every project of this klaude home, each under its root, the waiting sessions first',
      },
      json: {
        ...JSON_FLAG,
        description: 'print the tree as JSON (with --projects: {projects: [{id, root, sessions}]})',
      },
    },
    maxArgs: 0,
    examples: ['klaude sessions', 'klaude sessions -v', 'klaude sessions --projects', 'klaude sessions --json'],
    load: () => import('../sessions/sessions.js'),
  },
  {
    name: 'logs',
    summary: "print a session's log: readable, raw, summary, or followed live",
    usage: 'klaude logs <id> [-f] [-s] [--raw] [-n <N>]',
    description: LOG_DESCRIPTION,
    flags: {
      follow: { type: 'boolean', shortFlag: 'f', description: 'follow the log live until the agent is done' },
      ...LOG_OUTPUT_FLAGS,
    },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude logs 7XQ2', 'klaude logs 7XQ2 -f', 'klaude logs 7XQ2 -n 20', 'klaude logs 7XQ2 -s'],
    operands: ['session'],
    load: () => import('../sessions/logs.js'),
  },
];

export const READ_COMMANDS: CommandSpec[] = [
  {
    name: 'read',
    summary: "the same as `klaude logs` (the design notes' name), -t/--tail = -f",
    usage: 'klaude read <id> [-t|-f] [-s] [--raw] [-n <N>]',
    description: LOG_DESCRIPTION,
    flags: {
      follow: { type: 'boolean', shortFlag: 'f', description: 'follow the log live until the agent is done' },
      tail: { type: 'boolean', shortFlag: 't', description: 'the same as -f' },
      ...LOG_OUTPUT_FLAGS,
    },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude read 7XQ2', 'klaude read 7XQ2 -t', 'klaude read 7XQ2 -s'],
    operands: ['session'],
    load: () => import('../sessions/logs.js'),
  },
  {
    name: 'watch',
    summary: 'print [UPDATE] notes from sub-agents as they arrive (acknowledging them)',
    usage: 'klaude watch [id…] [--once] [--json] [--filter <re>]',
    description: [
      'Shows the updates agents report with `[UPDATE] <text>` lines (and `[NEEDS APPROVAL]` when one waits for',
      'a permission answer): those of the named sessions and their sub-agents or, inside klaude, of this',
      "Claude's sub-agents ($KLAUDE_SESSION_ID). Updates for a watched session are acknowledged, so they are",
      'not also injected after its next tool call. With neither, every pending update of the project is shown',
      '(whoever started the agent) and left pending.',
      'Without --once it keeps watching until Ctrl-C (it says so on stderr). --json prints one JSON object per line.',
    ].join('\n'),
    flags: {
      once: { type: 'boolean', description: 'print what is pending and exit' },
      filter: {
        type: 'string',
        valueName: 're',
        description: 'only updates matching this regular expression (case-insensitive); others stay pending',
      },
      json: JSON_FLAG,
    },
    examples: ['klaude watch --once', 'klaude watch 7XQ2', 'klaude watch --filter "tests? (pass|fail)"'],
    operands: ['session'],
    load: () => import('../agents/watch.js'),
  },
];

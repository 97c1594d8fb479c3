/** Command specs for answering and tidying agents: approve, deny, archive, delete (kept apart so registry.ts stays small). */
import { JSON_FLAG } from '../cli/flag-specs.js';
import type { CommandSpec } from '../cli/types.js';

export const APPROVAL_COMMANDS: CommandSpec[] = [
  {
    name: 'approve',
    summary: "allow an agent's pending permission request (the oldest; --always also adds the rule)",
    usage: 'klaude approve <id> [--always] [--request <n>] [--json]',
    description: [
      'A headless agent asks before a tool call its permission mode does not allow (e.g. Bash: npm test);',
      'it waits ("needs you" in `klaude sessions` and the dashboard) until someone answers.',
      '--always also adds the rule claude suggests (e.g. Bash(npm test)) to .claude/settings.local.json',
      "in the agent's directory (said before it is written), so the same call is not asked again.",
      "From Claude's Bash tool this is refused unless config agents.approvals is `parent`.",
    ].join('\n'),
    flags: {
      always: { type: 'boolean', description: 'allow, and add the suggested rule to .claude/settings.local.json' },
      request: {
        type: 'string',
        valueName: 'n',
        description: 'answer this request (its number, or a prefix of its request id) instead of the oldest',
      },
      json: JSON_FLAG,
    },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude approve 7XQ2', 'klaude approve 7XQ2 --always', 'klaude approve 7XQ2 --request 12'],
    operands: ['session:waiting'],
    load: () => import('../person/approve.js'),
  },
  {
    name: 'deny',
    summary: "deny an agent's pending permission request (the oldest); the reason is shown to the model",
    usage: 'klaude deny <id> [--reason "<text>"] [--request <n>] [--json]',
    description: [
      'The tool call is not run; the agent is told it was denied (with --reason, why) and carries on.',
      "From Claude's Bash tool this is refused unless config agents.approvals is `parent`.",
    ].join('\n'),
    flags: {
      reason: {
        type: 'string',
        valueName: 'text',
        description: 'tell the agent why (it sees this text as the tool result)',
      },
      request: {
        type: 'string',
        valueName: 'n',
        description: 'answer this request (its number, or a prefix of its request id) instead of the oldest',
      },
      json: JSON_FLAG,
    },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude deny 7XQ2', 'klaude deny 7XQ2 --reason "use npm run test:unit instead"'],
    operands: ['session:waiting'],
    load: () => import('../person/deny.js'),
  },
];

export const TIDY_COMMANDS: CommandSpec[] = [
  {
    name: 'rename',
    summary: 'give a session a title: listings show it instead of the first prompt ("" clears it)',
    usage: 'klaude rename <id> "<title>" [--json]',
    description: [
      'The title replaces the first prompt in `klaude sessions`, the dashboard, `klaude watch` and the',
      'headers of `klaude wait`; `sessions -v` and `--json` still show the prompt. One line, up to 120',
      'characters. The id may name a session of any project of this klaude home.',
    ].join('\n'),
    flags: { json: { ...JSON_FLAG, description: 'print {id, name}' } },
    minArgs: 2,
    maxArgs: 2,
    examples: ['klaude rename 7XQ2 "auth refactor"', 'klaude rename 7XQ2 ""'],
    operands: ['session', 'text'],
    load: () => import('../sessions/rename.js'),
  },
  {
    name: 'budget',
    summary: "show, set or raise a session's spend limit in USD (covering its sub-agents; 0 removes it)",
    usage: 'klaude budget <id> [<usd>] [--json]',
    description: [
      'An agent whose tree (itself and its sub-agents) has spent its limit, or a limit above it, is stopped',
      'before its next turn: the run ends failed, "over budget" with the figures, and you are told',
      '(notify.*). Sub-agents started under it wait in the queue ("queued: over budget"). After raising',
      'the limit, those start and `klaude message <id> "…"` goes on. Set at start with `klaude start',
      '--budget <usd>`, in an agent definition (budgetUsd:), or for every agent with config agents.budgetUsd.',
    ].join('\n'),
    flags: { json: { ...JSON_FLAG, description: 'print {id, budgetUsd, spentUsd, started}' } },
    minArgs: 1,
    maxArgs: 2,
    examples: ['klaude budget 7XQ2', 'klaude budget 7XQ2 2.50', 'klaude budget 7XQ2 0'],
    operands: ['session', 'text'],
    load: () => import('../person/budget.js'),
  },
  {
    name: 'pin',
    summary: 'pin sessions: pinned rows stay on top in listings and the dashboard (--unpin)',
    usage: 'klaude pin <id…> [--unpin] [--json]',
    flags: {
      unpin: { type: 'boolean', description: 'unpin them instead' },
      json: { ...JSON_FLAG, description: 'print {pinned: [ids]} (or {unpinned: [ids]})' },
    },
    minArgs: 1,
    examples: ['klaude pin 7XQ2', 'klaude pin 7XQ2 --unpin'],
    operands: ['session'],
    load: () => import('../sessions/pin.js'),
  },
  {
    name: 'archive',
    summary: 'hide finished sessions (and their sub-agents) from listings; --restore brings them back',
    usage: 'klaude archive <id…> [--restore] [--json]',
    description: [
      "What the dashboard's d does: nothing is stopped or deleted; `klaude sessions --all` still lists them.",
      'Refused (E_SESSION_BUSY) while any of them is working or has a live process.',
    ].join('\n'),
    flags: {
      restore: { type: 'boolean', description: 'un-archive them instead' },
      json: JSON_FLAG,
    },
    minArgs: 1,
    examples: ['klaude archive 7XQ2', 'klaude archive 7XQ2 9KD1', 'klaude archive 7XQ2 --restore'],
    operands: ['session'],
    load: () => import('../sessions/archive.js'),
  },
  {
    name: 'delete',
    summary: 'delete finished sessions, their sub-agents and their logs (refuses running ones)',
    usage: 'klaude delete <id…> [--json]',
    description: [
      "Removes klaude's records and log files of the sessions and their sub-agents. Claude Code's own",
      'transcripts are left alone. Refused (E_SESSION_BUSY) while any of them is working or has a live process.',
    ].join('\n'),
    flags: { json: JSON_FLAG },
    minArgs: 1,
    examples: ['klaude delete 7XQ2'],
    operands: ['session'],
    load: () => import('../sessions/delete.js'),
  },
];

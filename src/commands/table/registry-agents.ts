/** Command specs for starting, steering and waiting for agents: start, message, fork, interrupt, wait (kept apart so registry.ts stays small). */
import { INSTANCE_FLAG, JSON_FLAG } from '../cli/flag-specs.js';
import type { CommandSpec } from '../cli/types.js';

export const AGENT_COMMANDS: CommandSpec[] = [
  {
    name: 'start',
    summary: 'start sub-agent(s) on a task and follow the first one live (or return at once with -d)',
    usage:
      'klaude start <type> "<prompt>"|-|--prompt-file <file> [count] [-d] [-c [--now]] [-s] [-w] [--runtime <name>] [--model <name>] [--skill <name>] [--sandbox|--no-sandbox] [--zone <name>] [--priority high|normal|low] [--json]',
    description: [
      'Creates child session(s) of the klaude session in this terminal ($KLAUDE_SESSION_ID, set in every claude',
      'klaude runs); without it (a plain shell) they are top-level sessions. Each agent runs headless in its',
      "own process, which survives this command, the supervisor and Claude's Bash-tool timeout.",
      '<type> names an agent definition (.claude/agents/<type>.md); `general` is a plain agent.',
      'count (1-20) starts that many agents with the same prompt. The prompt `-` is read from stdin, and',
      '--prompt-file <file> reads it from a file (`-`: stdin); there is no size limit beyond memory.',
      "Attached (default): prints the agent's text and one line per tool call as they happen, then a",
      'summary (status, files edited/created, final text, cost); exit 0 when done, 1 when it failed or was',
      'interrupted. Ctrl-C (or the Bash tool timing out) only detaches: the agent keeps running; follow it',
      'with `klaude logs -f <id>`, collect it with `klaude wait <id>`. Run by Claude (its Bash tool), an',
      'attached start returns when an agent asks for a permission (exit 3, the request named), as `wait` does.',
      '--share appends your recent conversation to the prompt: the last 12 user/assistant text messages',
      "of the parent's Claude transcript (tool calls and results left out, each message cut at 2,000",
      'characters, newest kept within 12,000), in a <parent-context> block after the prompt.',
      'Agents report progress to you with lines `[UPDATE] <text>` (see `klaude watch`).',
      '--worktree gives each agent a git worktree on a new branch `klaude/<shortid>-<type>` from the current',
      'HEAD, in <KLAUDE_HOME>/projects/<project-hash>/worktrees/<shortid> (outside your tree); the agent works',
      'there and your tree is untouched. `klaude diff <id>` shows what it changed, `klaude merge <id>` brings',
      'its branch into your current branch, `klaude worktree prune` removes finished worktrees.',
      "Agents run in their CLI's sandbox where it is installed (config agents.sandbox, a definition's `sandbox:`):",
      'their commands can write only their working tree and reach only allowed hosts, and they reach klaude',
      "only through a channel of their own (docs/sandbox.md). `klaude sessions -v` shows each one's state.",
      '--skill <name> (or `skill:` in the definition) runs a Claude Code skill found as claude finds it: managed,',
      'then ~/.claude/skills/<name>/SKILL.md (personal), then .claude/skills/<name>/SKILL.md of this directory and',
      "those above it to the git top level (project), then enabled plugins' skills (`<plugin>:<name>`; a bare name",
      'two plugins have is refused, naming both). A claude agent gets `/<name> <prompt>` and runs it natively;',
      'codex, gemini, opencode and cursor agents get it expanded: SKILL.md with the arguments put in, and the',
      'files it names in its directory (up to 32 KiB each, 128 KiB in all). `klaude agents --skills` lists them.',
    ].join('\n'),
    flags: {
      detach: {
        type: 'boolean',
        shortFlag: 'd',
        description: 'print the new id(s) and return at once; the agent runs on',
      },
      checkout: {
        type: 'boolean',
        shortFlag: 'c',
        description:
          "switch the foreground Claude into the new agent's conversation when its first turn ends (needs a running klaude; implies -d)",
      },
      now: {
        type: 'boolean',
        description:
          'with -c: switch as soon as the conversation has begun, stopping the first turn (the foreground continues it)',
      },
      share: {
        type: 'boolean',
        shortFlag: 's',
        description: 'append your recent conversation to the prompt (see above)',
      },
      worktree: {
        type: 'boolean',
        shortFlag: 'w',
        description:
          'run each agent in a git worktree of its own (see above; also `worktree: true` in the definition, or config agents.worktree)',
      },
      runtime: {
        type: 'string',
        valueName: 'name',
        completes: 'runtime',
        description:
          "CLI that runs the agent: claude, codex, gemini, opencode or cursor (default: the definition's runtime, else the model's (gpt-*/o3/codex* → codex, gemini-* → gemini, provider/model → opencode), else config agents.defaultRuntime)",
      },
      model: {
        type: 'string',
        valueName: 'name',
        description: "model for the agent (default: the definition's model, else config agents.model)",
      },
      promptFile: {
        type: 'string',
        valueName: 'file',
        completes: 'file',
        description: 'read the prompt from this file (`-`: stdin) instead of the second argument',
      },
      budget: {
        type: 'number',
        valueName: 'usd',
        description:
          'spend limit in USD of each agent and its sub-agents (default config agents.budgetUsd): reached, it is stopped before its next turn (`klaude budget <id> <usd>` raises it)',
      },
      sandbox: {
        type: 'boolean',
        description:
          "run its commands in its CLI's sandbox, or fail with the fix (--no-sandbox: unsandboxed; default: the definition's `sandbox:`, else config agents.sandbox)",
      },
      bypassWithoutSandbox: {
        type: 'boolean',
        description:
          'allow permissionMode bypassPermissions although the agent runs unsandboxed: every command runs unasked with your whole account in reach (refused otherwise)',
      },
      zone: {
        type: 'string',
        valueName: 'name',
        description:
          'run the agent(s) on another machine (config `zones`, `klaude zone add`): in a worktree of its clone, from your HEAD, over your own ssh; shown here as any agent (docs/zones.md)',
      },
      skill: {
        type: 'string',
        valueName: 'name',
        description:
          'run a Claude Code skill, the prompt being its arguments (may be left out): claude agents run it natively (`/<name> …`), others get its SKILL.md and the files it names in the prompt (see above)',
      },
      priority: {
        type: 'string',
        valueName: 'level',
        completes: ['high', 'normal', 'low'],
        description:
          "high, normal or low: when the run limit makes agents wait, higher ones start first, first come first served within a level (default: the definition's priority:, else normal; `klaude queue` shows and changes the order)",
      },
      instance: INSTANCE_FLAG,
      json: { type: 'boolean', description: 'print {"sessions":[…]} with the new ids at once (implies -d)' },
    },
    minArgs: 1,
    maxArgs: 3,
    examples: [
      'klaude start general "find where the config is loaded"',
      'klaude start reviewer "review src/db" -d',
      'klaude start general "try approach A" 3 -d',
      'klaude start planner "plan the refactor we discussed" --share',
      'klaude start general "try the new parser" --worktree',
      'git diff | klaude start reviewer - -d',
      'klaude start planner --prompt-file task.md',
      'klaude start general "run the full test suite" --zone build',
      'klaude start general "fix the failing build" --priority high -d',
    ],
    operands: ['agent-type', 'text', 'text'],
    load: () => import('../agents/start.js'),
  },
  {
    name: 'message',
    summary: 'send a follow-up message to an agent (resuming its conversation if it has stopped)',
    usage: 'klaude message <id> "<prompt>" [--image <file>]… [-f|--wait] [--timeout <seconds>] [--json]',
    description: [
      'A running agent gets the message after its current turn. An agent that has finished is resumed:',
      'a new run continues its own Claude session (it sees the earlier turns). The output says which.',
      '-f (--wait) then follows the reply live and ends with the summary, like an attached start; sent',
      'to a running agent, the reply starts after its current turn.',
      '--image sends an image with the message (repeat it for more, up to 4; the prompt may then be left',
      'out): PNG, JPEG, GIF or WebP, known by its first bytes, at most 5 MB. Only claude agents take images',
      '(E_IMAGE_UNSUPPORTED for the others); a refused image sends nothing (E_IMAGE).',
    ].join('\n'),
    flags: {
      image: {
        type: 'string',
        valueName: 'file',
        completes: 'file',
        isMultiple: true,
        description: 'send this image with the message (claude agents; PNG, JPEG, GIF or WebP, at most 5 MB)',
      },
      wait: { type: 'boolean', shortFlag: 'f', description: 'follow the reply and print it, then the summary' },
      timeout: {
        type: 'number',
        valueName: 'seconds',
        description:
          'with -f: stop following after this long (default config wait.timeoutSeconds); the agent keeps running',
      },
      json: JSON_FLAG,
    },
    minArgs: 1,
    maxArgs: 2,
    operands: ['session', 'text'],
    examples: [
      'klaude message 7XQ2 "also check the tests"',
      'klaude message 7XQ2 "and now?" -f',
      'klaude message 7XQ2 "the button looks wrong here" --image screenshot.png',
    ],
    load: () => import('../agents/message.js'),
  },
  {
    name: 'fork',
    summary: "start a new agent on a fork of a session's Claude conversation (the origin is left as it is)",
    usage: 'klaude fork <id> ["<prompt>"] [-d] [--json]',
    description: [
      "The new agent continues a copy of <id>'s conversation (claude --resume <it> --fork-session): it sees",
      "every earlier turn, then <prompt> (default: 'Continue from here.'). It sits beside its origin (same",
      'parent, project and directory), of the same agent type (`general` for an interactive session), and',
      '`klaude sessions` shows "forked from <id>". Only claude conversations can be forked (E_FORK_UNSUPPORTED).',
      "A fork of a --worktree agent gets a worktree and branch of its own, made from the origin's as it is now",
      '(its commit, and its uncommitted changes copied over; ignored files are not), and owns it: klaude diff,',
      'merge and worktree prune work on it, and archiving or pruning the origin leaves it alone.',
      "A zone's agent (`start --zone`) is forked over there, where its conversation and files are: the fork",
      'is another agent of that zone (docs/zones.md).',
      'Attached (default) it follows the fork like `klaude start`; -d returns at once.',
    ].join('\n'),
    flags: {
      detach: { type: 'boolean', shortFlag: 'd', description: 'print the new id and return at once; the fork runs on' },
      json: {
        ...JSON_FLAG,
        description:
          'print {id, shortId, type, status, forkedFrom, nativeSessionId, parentId, worktreePath?, worktreeBranch?} (implies -d)',
      },
    },
    minArgs: 1,
    maxArgs: 2,
    examples: ['klaude fork 7XQ2 "try it with a queue instead"', 'klaude fork 7XQ2 -d'],
    operands: ['session', 'text'],
    load: () => import('../agents/fork.js'),
  },
  {
    name: 'interrupt',
    summary: "stop the current turn of running agent(s); they end 'interrupted' and can be messaged again",
    usage: 'klaude interrupt <id…> [--json]',
    description:
      "Fails with E_AGENT_NOT_RUNNING for an agent that is not running a turn. A queued agent (run limit) is cancelled: it ends 'cancelled' without ever running.",
    flags: { json: JSON_FLAG },
    minArgs: 1,
    examples: ['klaude interrupt 7XQ2', 'klaude interrupt 7XQ2 9KD1'],
    operands: ['session:active'],
    load: () => import('../agents/interrupt.js'),
  },
];

export const WAIT_COMMAND: CommandSpec = {
  name: 'wait',
  summary: 'wait until agent(s) are done and print their summaries',
  usage: 'klaude wait <id…> [--any] [--timeout <seconds>] [--json]',
  description: [
    'Blocks until every named agent (with --any: the first of them) has finished, then prints each',
    "finished agent's summary: status, files edited/created, final text, cost.",
    'Exit 0 when all finished agents are done, 1 when one failed or was interrupted, 124 on timeout',
    "(the agents keep running; wait again). The default timeout (config wait.timeoutSeconds, 540) stays below Claude's 10-minute Bash limit.",
    'A permission request of an agent is named on stderr when it comes; run by Claude with config',
    'agents.approvals: parent, wait returns at once with exit 3 so Claude can answer it (then wait again).',
  ].join('\n'),
  flags: {
    any: { type: 'boolean', description: 'return as soon as one of them is done' },
    timeout: { type: 'number', valueName: 'seconds', description: 'give up after this long (exit 124)' },
    json: JSON_FLAG,
  },
  minArgs: 1,
  examples: ['klaude wait 7XQ2', 'klaude wait 7XQ2 9KD1 --any --timeout 300'],
  operands: ['session'],
  load: () => import('../agents/wait.js'),
};

/**
 * The command table: COMMANDS lists every command, in the order `klaude --help` shows them
 * (groups of specs are in registry-agents/-manage/-review.ts). Only specs live here; each
 * command's code is behind a dynamic import so `klaude hook …` (run by Claude Code after every
 * tool call) loads nothing it doesn't need.
 */
import { INSTANCE_FLAG, JSON_FLAG } from './flag-specs.js';
import { AGENT_COMMANDS } from './registry-agents.js';
import { APPROVAL_COMMANDS, TIDY_COMMANDS } from './registry-manage.js';
import { REVIEW_COMMANDS } from './registry-review.js';
import type { CommandSpec } from './types.js';

export const COMMANDS: CommandSpec[] = [
  {
    name: '',
    passthrough: true,
    summary: 'run Claude Code in this project under klaude (foreground claude, checkout, agents)',
    usage: 'klaude [--resume-last | -c | --resume <id>] [-- <claude args>]',
    description: [
      'Starts a supervisor for this project and runs the interactive `claude` in the foreground.',
      'From inside Claude, `klaude checkout <id>` switches the foreground to another session.',
      'Needs a terminal (without one: E_USAGE, nothing recorded). -c/--continue is --resume-last.',
      '',
      'Claude args after `--` are passed on every launch (also after checkout), except:',
      '  --name and a prompt: first launch only;',
      '  --settings: merged with the hook settings klaude injects;',
      '  --resume/-r, --continue/-c, --session-id, --fork-session, --print/-p, --worktree/-w: refused after --',
      '  (klaude picks the session; use --resume-last, --resume <id> or checkout); --bare and --safe-mode\n  are refused too: they switch off the hooks klaude keeps its records with.',
    ].join('\n'),
    flags: {
      resumeLast: {
        type: 'boolean',
        description: 'resume the newest root session of this project instead of starting fresh',
      },
      resume: {
        type: 'string',
        valueName: 'id',
        description: 'resume this session (klaude id, prefix/suffix, or Claude id)',
      },
      continue: { type: 'boolean', shortFlag: 'c', description: "same as --resume-last (claude's spelling)" },
    },
    examples: ['klaude', 'klaude -- --model sonnet', 'klaude --resume-last'],
    load: () => import('./root.js'),
  },
  {
    name: 'ui',
    passthrough: true,
    summary: 'full-screen dashboard: agent tree, live logs; Enter opens a session in claude',
    usage: 'klaude ui [--all] [-- <claude args>]',
    description: [
      "Starts a supervisor for this project whose home screen is a dashboard: the project's sessions",
      "and sub-agents as a tree, the selected one's log live beside it. Enter hands the terminal to",
      "claude on that session's conversation (n: a new one); when claude exits the dashboard returns.",
      's starts an agent, m messages one, i interrupts, c shows its diff, d archives, / filters, ? lists every key.',
      "Space peeks at a session (a PTY session's last screen, else its last message); m on a PTY session types a line into its prompt.",
      '--all (or P) shows every project of this klaude home: a "needs you" group first, then each project.',
      'Claude args after `--` are passed to every claude it launches (as with `klaude`).',
    ].join('\n'),
    flags: {
      all: {
        type: 'boolean',
        description: 'every project of this klaude home in the tree (needs you first, then each project; P toggles)',
      },
    },
    maxArgs: 0,
    examples: ['klaude ui', 'klaude ui --all', 'klaude ui -- --model sonnet'],
    load: () => import('./ui.js'),
  },
  {
    name: 'web',
    summary: 'the same agents in a browser or on a phone: start (or find) the web server, print its address',
    usage:
      'klaude web [--host <address>] [--port <n>] [--allow-host <names>] [--stop | --status | --rotate-token] [--json]',
    description: [
      "One web server per klaude home (every project's sessions), detached: it outlives this command.",
      'Prints its address with a one-time sign-in link (after #, never sent in a request); the page trades',
      'it for a cookie, once: run `klaude web` again for another link (the server keeps running).',
      'Needs-you list, the session tree, live logs, approvals, messages, interrupt, diff, merge, and the',
      'live terminal of a PTY session (view-only; "Take over" to type, as `klaude talk` would).',
      'Bound to 127.0.0.1: from a phone, use an SSH tunnel or a VPN (README, "klaude web").',
      '--host binds elsewhere (warned: whoever has the token controls your agents like a shell).',
      'It answers to addresses and localhost only (DNS rebinding); --allow-host names a VPN name of yours.',
    ].join('\n'),
    flags: {
      host: { type: 'string', valueName: 'address', description: 'address to listen on (default 127.0.0.1)' },
      port: { type: 'number', valueName: 'n', description: 'port to listen on (default 7878; 0: any free one)' },
      allowHost: {
        type: 'string',
        valueName: 'names',
        description: 'DNS names it also answers to, comma-separated (e.g. your VPN name for this machine)',
      },
      stop: { type: 'boolean', description: 'stop the running server' },
      status: { type: 'boolean', description: 'say whether it runs, and where (exit 1 when not)' },
      rotateToken: {
        type: 'boolean',
        description: 'make a new token: every signed-in page is signed out, unused links stop working',
      },
      json: JSON_FLAG,
    },
    maxArgs: 0,
    examples: [
      'klaude web',
      'klaude web --status',
      'klaude web --host 100.101.102.103 --allow-host mybox.tail1234.ts.net',
      'ssh -L 7878:127.0.0.1:7878 my-machine  # then open the URL on the phone',
    ],
    load: () => import('./web.js'),
  },
  {
    name: 'checkout',
    summary: "switch the foreground Claude to a session's conversation (no id: back to the parent)",
    usage: 'klaude checkout [id] [--force] [--timeout <seconds>] [--json]',
    description:
      "Stops the foreground claude and resumes the target's Claude session in its place.\nThe id may be a klaude id, a unique prefix/suffix (4+ chars), or a Claude session id.\nA running agent is not stopped: checkout refuses (E_SESSION_BUSY) unless --force; `klaude wait <id>` first.",
    flags: {
      force: {
        type: 'boolean',
        description: 'check out a running agent anyway, stopping its current run (its turn ends interrupted)',
      },
      timeout: {
        type: 'number',
        valueName: 'seconds',
        description: "how long to wait for a starting target's Claude session (default switch.targetTimeoutSeconds)",
      },
      instance: INSTANCE_FLAG,
      json: JSON_FLAG,
    },
    maxArgs: 1,
    examples: ['klaude checkout 7XQ2', 'klaude checkout'],
    load: () => import('./checkout.js'),
  },
  {
    name: 'talk',
    summary: 'talk to a session in a PTY that keeps running in the background (Ctrl-] detaches)',
    usage: 'klaude talk <id> [--view]',
    description: [
      "Opens the session's interactive CLI (`claude --resume <its conversation>`, or its runtime's own)",
      'in a PTY owned by a small background process, and puts this terminal through to it: keys,',
      'Ctrl-C and resizes go to the session. Ctrl-] (config talk.detachKey), Ctrl-Z, or typing the line',
      '///detach and Enter, returns to the shell while the session keeps running; `klaude talk <id>`',
      'again re-attaches and shows its current screen at once. When the CLI exits the PTY session ends.',
      'One terminal talks at a time: a second one gets E_SESSION_BUSY; --view watches read-only',
      '(q, Ctrl-C or the detach key stop watching). A session open in a klaude foreground or running',
      'headless is refused (never two processes on one conversation).',
    ].join('\n'),
    flags: {
      view: { type: 'boolean', description: 'watch the running PTY session read-only (keys are not sent)' },
    },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude talk 7XQ2', 'klaude talk 7XQ2 --view'],
    load: () => import('./talk.js'),
  },
  ...AGENT_COMMANDS,
  ...APPROVAL_COMMANDS,
  {
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
    load: () => import('./wait.js'),
  },
  ...TIDY_COMMANDS,
  {
    name: 'status',
    summary: 'show the klaude supervisors running in this project and what they run',
    usage: 'klaude status [--projects] [--json]',
    flags: {
      projects: {
        type: 'boolean',
        description: 'every project of this klaude home that has sessions, one block each',
      },
      json: JSON_FLAG,
    },
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
    name: 'agents',
    summary: 'list the agent types `klaude start <type>` can run, and problems in agent files',
    usage: 'klaude agents [--json]',
    description: [
      'Agent types come from markdown files with YAML frontmatter:',
      '  <project>/.claude/agents/<name>.md   (project; wins on a name clash)',
      '  ~/.claude/agents/<name>.md           (user)',
      '  general                              (built-in: a plain Claude Code agent)',
      'Fields: name (default: file name), description, model, reasoningEffort (low|medium|high),',
      '  runtime (claude|codex|gemini|cursor|opencode), allowedAgents (list of types it may start),',
      '  tools / disallowedTools (Claude Code tool names, list or comma list),',
      '  mcpServers (list: exactly these servers, by name or {name: config};',
      '              map {name: config}: servers added to the inherited ones),',
      '  inheritProjectMcps (default true: MCP servers of the local > project > user scopes),',
      "  inheritParentMcps (default false: the parent session's servers),",
      '  outputDir (final text saved under .claude/<outputDir>/), color, permissionMode,',
      "  worktree (true: run in a git worktree of its own, as `klaude start --worktree`; Claude Code's",
      '            `isolation: worktree` means the same).',
      '  onStop (list of {prompt, artifact}: asked when its work ends, answers kept; adds to agents.onStop),',
      '  budgetUsd (spend limit in USD of each such agent and its sub-agents; --budget wins, else agents.budgetUsd).',
      "The markdown body is appended to Claude Code's system prompt.",
      "Project servers (.mcp.json) count only once approved, as Claude Code's own prompt approves them:",
      '  "enabledMcpjsonServers": [names] or "enableAllProjectMcpServers": true in .claude/settings.local.json',
      '  or ~/.claude/settings.json (.claude/settings.json once the project is trusted), and not listed in',
      '  "disabledMcpjsonServers". Agents get exactly the servers resolved (--strict-mcp-config); the',
      '  listing names the project servers left out and how to approve them.',
      'Bad files are listed on stderr with path, line and problem; the exit code stays 0.',
    ].join('\n'),
    flags: { json: JSON_FLAG },
    maxArgs: 0,
    examples: ['klaude agents', 'klaude agents --json'],
    load: () => import('./agents.js'),
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
    name: 'doctor',
    summary: 'check that klaude works here: claude and its version, Node, hooks, database, run directory, processes',
    usage: 'klaude doctor [--json]',
    description: [
      'One line per check: ✔ fine, ! worth knowing, ✗ broken (with the fix on the line below).',
      'Checks the claude klaude would launch (claude.binary or PATH) and whether klaude was tested with',
      'its version; Node; that Claude Code runs the hooks klaude injects and they record (a throwaway',
      "claude in this directory with klaude's hooks and no prompt: no model request, its records go to a",
      'temporary home); the database (integrity, migrations: one from a newer klaude is ✗); the home and',
      'run directory (yours, 0700); the PTY server (answering its socket?); processes that outlived their',
      'owner. Changes nothing. Exit 0 when nothing is ✗, 1 otherwise.',
    ].join('\n'),
    flags: { json: JSON_FLAG },
    maxArgs: 0,
    examples: ['klaude doctor', 'klaude doctor --json'],
    load: () => import('./doctor.js'),
  },
  {
    name: 'sessions',
    summary: "list this project's sessions as a tree: root sessions and their sub-agents",
    usage: 'klaude sessions [-v] [--all] [--projects] [--json]',
    description: [
      'One row per session: id (last 8 chars; any unique 4+ char prefix/suffix works), status, agent type,',
      'runtime, age, and its title (`klaude rename`, else the first message) → the last assistant text.',
      'Pinned sessions (`klaude pin`) come first. Sessions that ended over 7 days ago and archived ones are',
      'hidden unless --all. --projects lists every project of this klaude home (sessions waiting for you first).',
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
    load: () => import('./sessions.js'),
  },
  {
    name: 'logs',
    summary: "print a session's log: readable, raw, summary, or followed live",
    usage: 'klaude logs <id> [-f] [-s] [--raw] [-n <N>]',
    description: [
      'Assistant text as is, one line per tool call (→ Bash: npm test), results folded (✓ 12 lines),',
      '[UPDATE] lines marked. The id may be a klaude id, a unique prefix/suffix (4+ chars) or a Claude session id.',
      '-f prints the log and follows it until the agent is done (Ctrl-C stops following; the agent keeps running).',
    ].join('\n'),
    flags: {
      follow: { type: 'boolean', shortFlag: 'f', description: 'follow the log live until the agent is done' },
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
    },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude logs 7XQ2', 'klaude logs 7XQ2 -f', 'klaude logs 7XQ2 -n 20', 'klaude logs 7XQ2 -s'],
    load: () => import('./logs.js'),
  },
  ...REVIEW_COMMANDS,
  {
    name: 'read',
    summary: "the same as `klaude logs` (the design notes' name), -t/--tail = -f",
    usage: 'klaude read <id> [-t|-f] [-s] [--raw] [-n <N>]',
    description: [
      'Assistant text as is, one line per tool call (→ Bash: npm test), results folded (✓ 12 lines),',
      '[UPDATE] lines marked. The id may be a klaude id, a unique prefix/suffix (4+ chars) or a Claude session id.',
      '-f prints the log and follows it until the agent is done (Ctrl-C stops following; the agent keeps running).',
    ].join('\n'),
    flags: {
      follow: { type: 'boolean', shortFlag: 'f', description: 'follow the log live until the agent is done' },
      tail: { type: 'boolean', shortFlag: 't', description: 'the same as -f' },
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
    },
    minArgs: 1,
    maxArgs: 1,
    examples: ['klaude read 7XQ2', 'klaude read 7XQ2 -t', 'klaude read 7XQ2 -s'],
    load: () => import('./logs.js'),
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
    load: () => import('./watch.js'),
  },
  {
    name: 'hook',
    summary: 'record a Claude Code hook event (injected by klaude; payload JSON on stdin)',
    usage:
      'klaude hook <session-start|session-end|user-prompt-submit|stop|stop-failure|notification|pre-tool-use|post-tool-use|post-tool-use-failure|permission-request>',
    description:
      'Outside klaude (no KLAUDE_SESSION_ID) it does nothing. It never fails Claude: errors go to the klaude log.',
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

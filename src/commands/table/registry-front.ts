/** Command specs for the front ends and moving between sessions: klaude itself, ui, web, checkout, talk (kept apart so registry.ts stays small). */
import { INSTANCE_FLAG, JSON_FLAG } from '../cli/flag-specs.js';
import type { CommandSpec } from '../cli/types.js';

export const FRONT_COMMANDS: CommandSpec[] = [
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
        completes: 'session',
        description: 'resume this session (klaude id, prefix/suffix, or Claude id)',
      },
      continue: { type: 'boolean', shortFlag: 'c', description: "same as --resume-last (claude's spelling)" },
    },
    examples: ['klaude', 'klaude -- --model sonnet', 'klaude --resume-last'],
    load: () => import('../views/root.js'),
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
    load: () => import('../views/ui.js'),
  },
  {
    name: 'web',
    summary: 'the same agents in a browser or on a phone: start (or find) the web server, print its address',
    usage:
      'klaude web [--host <address>] [--port <n>] [--allow-host <names>] [--stop | --status | --rotate-token] [--json]',
    description: [
      "One web server per klaude home (every project's sessions), detached: it outlives this command.",
      'Prints its address with a one-time sign-in link (after #, never sent in a request); the page trades',
      'it for a session of its own, once: run `klaude web` again for another link (the server keeps running).',
      'No link is made inside an agent (judged by the process tree, not the environment); agents started',
      'from a page run with the environment of the `klaude web` that made its link.',
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
    load: () => import('../views/web.js'),
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
    operands: ['session'],
    load: () => import('../views/checkout.js'),
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
    operands: ['session'],
    load: () => import('../views/talk.js'),
  },
];

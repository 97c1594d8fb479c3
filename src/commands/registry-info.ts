/** Command specs for looking at klaude itself: status, instances, agents, config, doctor (kept apart so registry.ts stays small). */
import { JSON_FLAG } from './flag-specs.js';
import type { CommandSpec } from './types.js';

export const INFO_COMMANDS: CommandSpec[] = [
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
    usage: 'klaude agents [--skills] [--json]',
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
      '  budgetUsd (spend limit in USD of each such agent and its sub-agents; --budget wins, else agents.budgetUsd),',
      '  skill (a Claude Code skill each such agent runs, its prompt being the arguments; --skill wins).',
      "The markdown body is appended to Claude Code's system prompt.",
      "Project servers (.mcp.json) count only once approved, as Claude Code's own prompt approves them:",
      '  "enabledMcpjsonServers": [names] or "enableAllProjectMcpServers": true in .claude/settings.local.json',
      '  or ~/.claude/settings.json (.claude/settings.json once the project is trusted), and not listed in',
      '  "disabledMcpjsonServers". Agents get exactly the servers resolved (--strict-mcp-config); the',
      '  listing names the project servers left out and how to approve them.',
      'Bad files are listed on stderr with path, line and problem; the exit code stays 0.',
    ].join('\n'),
    flags: {
      skills: {
        type: 'boolean',
        description:
          "list the Claude Code skills `klaude start --skill` takes here, in claude's order (managed, personal, project, plugins) with where each comes from",
      },
      json: JSON_FLAG,
    },
    maxArgs: 0,
    examples: ['klaude agents', 'klaude agents --skills', 'klaude agents --json'],
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
];

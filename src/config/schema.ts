/**
 * Every config key, declared once: type, default, and the line of documentation that
 * `klaude config --help`, the validator and the README all use.
 */
export const RUNTIMES = ['claude', 'codex', 'gemini', 'cursor', 'opencode'] as const;
export type RuntimeName = (typeof RUNTIMES)[number];

export const PERMISSION_MODES = ['default', 'acceptEdits', 'bypassPermissions', 'plan', 'dontAsk', 'auto'] as const;
export type PermissionMode = (typeof PERMISSION_MODES)[number];

/**
 * Keys `klaude talk` can detach with (config `talk.detachKey`): Ctrl plus a key that sends one
 * control byte and that a CLI rarely needs. Ctrl-C, -H, -I, -J, -M (interrupt, backspace, tab,
 * newline, enter) are left out; `none` leaves only the typed line `///detach`.
 */
export const DETACH_KEYS = [
  'ctrl-]',
  'ctrl-\\',
  'ctrl-^',
  'ctrl-_',
  'ctrl-a',
  'ctrl-b',
  'ctrl-d',
  'ctrl-e',
  'ctrl-f',
  'ctrl-g',
  'ctrl-k',
  'ctrl-l',
  'ctrl-n',
  'ctrl-o',
  'ctrl-p',
  'ctrl-q',
  'ctrl-r',
  'ctrl-s',
  'ctrl-t',
  'ctrl-u',
  'ctrl-v',
  'ctrl-w',
  'ctrl-x',
  'ctrl-y',
  'ctrl-z',
  'none',
] as const;
export type DetachKeyName = (typeof DETACH_KEYS)[number];

/** How the dashboard tells the person a session needs them (config `ui.notify`). */
export const NOTIFY_MODES = ['bell', 'osc9', 'both', 'none'] as const;
export type NotifyMode = (typeof NOTIFY_MODES)[number];

/** Who may answer a headless agent's permission request (config `agents.approvals`). */
export const APPROVERS = ['person', 'parent'] as const;
export type Approver = (typeof APPROVERS)[number];

/**
 * Where an agent's commands run (config `agents.sandbox`, a definition's `sandbox:`, `klaude start
 * --sandbox/--no-sandbox`): `auto` in its CLI's own sandbox when the engine is installed, else
 * unsandboxed (said once); `on` sandboxed or not started; `off` unsandboxed (docs/sandbox.md).
 */
export const SANDBOX_MODES = ['auto', 'on', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** How a run that died mid-turn is handled (config `agents.recover`). */
export const RECOVER_MODES = ['auto', 'ask', 'off'] as const;
export type RecoverMode = (typeof RECOVER_MODES)[number];

/**
 * One zone (config `zones.<name>`): another machine reached with the person's own OpenSSH, where
 * agents run in a clone of the project (docs/zones.md).
 */
export interface ZoneSpec {
  /** The ssh destination: `user@host`, or a `Host` of the person's ~/.ssh/config. */
  ssh: string;
  /** The project's clone there (`~/` is that machine's home). */
  path: string;
  /** The command that runs klaude there (default `klaude`; `klaude zone setup` installs one). */
  klaude?: string;
  /** More ssh arguments, before the destination (e.g. ["-F", "/path/to/config"], ["-p", "2222"]). */
  sshOptions?: string[];
}

/** One on-stop prompt: run in the agent's conversation when its work ends, answer kept as `artifact`. */
export interface OnStopPrompt {
  prompt: string;
  artifact: string;
}

export type KeySpec =
  | { type: 'string'; default: string | null; nullable?: boolean; doc: string }
  | { type: 'number'; default: number; min?: number; max?: number; doc: string }
  | { type: 'boolean'; default: boolean; doc: string }
  | { type: 'enum'; values: readonly string[]; default: string; doc: string }
  | { type: 'string[]'; default: string[]; doc: string }
  | { type: 'onStop'; default: OnStopPrompt[]; doc: string }
  | { type: 'zones'; default: Record<string, ZoneSpec>; doc: string };

/** `runtimes.<name>.maxRunning`, one key per runtime. */
const maxRunningSpec = (name: string) =>
  ({
    type: 'number',
    default: 0,
    min: 0,
    max: 1000,
    doc: `most ${name} agents running at once (0 = only agents.maxRunning limits them); more starts wait queued`,
  }) as const;

export const CONFIG_KEYS = {
  'claude.binary': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'Claude Code executable (path or command name); unset = `claude` found on PATH',
  },
  'codex.binary': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'OpenAI Codex CLI executable for runtime codex; unset = `codex` found on PATH',
  },
  'gemini.binary': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'Gemini CLI executable for runtime gemini; unset = `gemini` found on PATH',
  },
  'opencode.binary': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'opencode executable for runtime opencode; unset = `opencode` found on PATH',
  },
  'cursor.binary': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'Cursor CLI executable for runtime cursor; unset = `cursor-agent` (or `agent`) found on PATH',
  },
  'switch.graceSeconds': {
    type: 'number',
    // claude ≥ 2.1.332 first stops its running tool (its own ~1 s grace) and runs SessionEnd
    // hooks before it exits on SIGTERM: a few seconds under load (docs/claude-versions.md).
    default: 10,
    min: 0,
    max: 60,
    doc: 'seconds between SIGTERM and SIGKILL when checkout stops the foreground claude',
  },
  'switch.targetTimeoutSeconds': {
    type: 'number',
    default: 10,
    min: 0,
    max: 600,
    doc: "seconds checkout waits for a starting target's Claude session id",
  },
  'hooks.startWarnSeconds': {
    type: 'number',
    default: 10,
    min: 1,
    max: 600,
    doc: 'seconds after launching claude before klaude warns (once) that its SessionStart hook never arrived (hooks disabled?)',
  },
  'stream.timestamp': {
    type: 'boolean',
    default: false,
    doc: 'prefix streamed agent lines (start, logs -f) with the time',
  },
  'logs.dir': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'directory for session logs; unset = <home>/projects/<project-hash>/logs',
  },
  'agents.defaultRuntime': {
    type: 'enum',
    values: RUNTIMES,
    default: 'claude',
    doc: 'runtime for agents when neither --runtime, the agent definition nor the model decides',
  },
  'agents.permissionMode': {
    type: 'enum',
    values: PERMISSION_MODES,
    default: 'default',
    doc: 'Claude Code --permission-mode for headless agents; `default` asks (klaude holds the request until someone answers: `klaude approve`/`deny`, the dashboard)',
  },
  'agents.sandbox': {
    type: 'enum',
    values: SANDBOX_MODES,
    default: 'auto',
    doc: "where headless agents' commands run: `auto` in their CLI's sandbox (claude: bubblewrap + socat on Linux, Seatbelt on macOS) when it is installed, else unsandboxed (said once); `on` sandboxed or refused; `off` unsandboxed. A definition's `sandbox:` and `klaude start --sandbox/--no-sandbox` override it; a sandboxed agent's sub-agents are sandboxed too",
  },
  'sandbox.allowWrite': {
    type: 'string[]',
    default: [],
    doc: 'paths sandboxed agents may write besides their working tree (their worktree when they have one), e.g. a shared cache (`~/.cache/pip`)',
  },
  'sandbox.allowedDomains': {
    type: 'string[]',
    default: [],
    doc: 'domains sandboxed commands may reach without asking (`*.npmjs.org`); any other host is a permission request (needs you)',
  },
  'agents.bypassWithoutSandbox': {
    type: 'boolean',
    default: false,
    doc: 'let agents that run unsandboxed use permissionMode bypassPermissions: they then run every command unasked with your whole account in reach (as `klaude start --bypass-without-sandbox`); off, such a start is refused',
  },
  'agents.approvals': {
    type: 'enum',
    values: APPROVERS,
    default: 'person',
    doc: "who may answer agents' permission requests: `person` (dashboard, or `klaude approve`/`deny` from a shell) or `parent` (also the parent Claude, through its Bash tool)",
  },
  'agents.approvalTimeoutSeconds': {
    type: 'number',
    default: 0,
    min: 0,
    max: 604800,
    doc: 'deny a permission request nobody answered after this many seconds; 0 = wait until answered',
  },
  'agents.allowedTools': {
    type: 'string[]',
    default: [],
    doc: 'extra Claude Code --allowedTools rules for headless agents (e.g. "Bash(npm test:*)")',
  },
  'agents.worktree': {
    type: 'boolean',
    default: false,
    doc: 'run agents in a git worktree of their own unless their definition says `worktree: false` (as `klaude start --worktree`)',
  },
  'agents.model': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'default model for agents; unset = the CLI default',
  },
  'agents.maxRunning': {
    type: 'number',
    default: 0,
    min: 0,
    max: 1000,
    doc: 'most headless agents running at once, all runtimes together (0 = no limit); a start beyond it waits queued, first in first out',
  },
  'runtimes.claude.maxRunning': maxRunningSpec('claude'),
  'runtimes.codex.maxRunning': maxRunningSpec('codex'),
  'runtimes.gemini.maxRunning': maxRunningSpec('gemini'),
  'runtimes.cursor.maxRunning': maxRunningSpec('cursor'),
  'runtimes.opencode.maxRunning': maxRunningSpec('opencode'),
  'agents.onStop': {
    type: 'onStop',
    default: [],
    doc: "prompts run in the agent's conversation when its work ends, each answer stored as a named artifact: a list of {prompt, artifact} (agent definitions may add their own `onStop`)",
  },
  'agents.recover': {
    type: 'enum',
    values: RECOVER_MODES,
    default: 'auto',
    doc: 'a headless agent whose run died mid-turn: `auto` resumes its conversation with a resume prompt (once per turn), `ask` marks it as needing you, `off` leaves it interrupted',
  },
  'wait.timeoutSeconds': {
    type: 'number',
    default: 540,
    min: 1,
    max: 86400,
    doc: "default timeout of `klaude wait` (below Claude's 10-minute Bash limit)",
  },
  'talk.detachKey': {
    type: 'enum',
    values: DETACH_KEYS,
    default: 'ctrl-]',
    doc: '`klaude talk`: the key that detaches (the session keeps running); the typed line `///detach` + Enter always works',
  },
  'ui.maxFps': {
    type: 'number',
    default: 30,
    min: 1,
    max: 120,
    doc: 'frame-rate cap of the dashboard',
  },
  'ui.notify': {
    type: 'enum',
    values: NOTIFY_MODES,
    default: 'bell',
    doc: 'when a session starts waiting for you (permission prompt, question) or an agent finishes: `bell` rings the terminal bell, `osc9` sends an OSC 9 desktop notification, `both`, or `none`',
  },
  'agents.budgetUsd': {
    type: 'number',
    default: 0,
    min: 0,
    max: 1_000_000,
    doc: 'spend limit in USD of each agent started without --budget whose definition has no budgetUsd, covering its sub-agents (0 = none): one that has reached it is stopped before its next turn, `over budget`; `klaude budget <id> <usd>` raises it',
  },
  'notify.desktop': {
    type: 'boolean',
    default: true,
    doc: 'tell the desktop when a session needs you, an agent is done or failed, in any project, whichever klaude process sees it (`notify-send` on Linux, `osascript` on macOS; nothing where neither exists); each event once',
  },
  'notify.command': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'a shell command run for each such event, with the event as JSON on stdin and KLAUDE_NOTIFY_EVENT/_TITLE/_TEXT/_SESSION/_PROJECT in its environment (e.g. `ntfy publish mytopic "$KLAUDE_NOTIFY_TEXT"`); unset = none',
  },
  'notify.url': {
    type: 'string',
    default: null,
    nullable: true,
    doc: 'a webhook: each such event is POSTed there as JSON ({event, title, text, sessionId, shortId, type, project, projectRoot, tool, summary, at}); unset = none. A failing notifier is logged, never fatal',
  },
  zones: {
    type: 'zones',
    default: {},
    doc: "other machines agents can run on (`klaude start --zone <name>`), by name: {ssh: user@host or a Host of ~/.ssh/config, path: the project's clone there, klaude: the command that runs klaude there (default `klaude`), sshOptions: more ssh arguments}; `klaude zone add` writes one (docs/zones.md)",
  },
} as const satisfies Record<string, KeySpec>;

export type ConfigKey = keyof typeof CONFIG_KEYS;

type ValueOf<S> = S extends { type: 'string'; nullable: true }
  ? string | null
  : S extends { type: 'string' }
    ? string
    : S extends { type: 'number' }
      ? number
      : S extends { type: 'boolean' }
        ? boolean
        : S extends { type: 'enum'; values: readonly (infer V)[] }
          ? V
          : S extends { type: 'string[]' }
            ? string[]
            : S extends { type: 'onStop' }
              ? OnStopPrompt[]
              : S extends { type: 'zones' }
                ? Record<string, ZoneSpec>
                : never;

/** Flat, fully-resolved config: `config['switch.graceSeconds']`. */
export type Config = { -readonly [K in ConfigKey]: ValueOf<(typeof CONFIG_KEYS)[K]> };

export function defaultConfig(): Config {
  const out: Record<string, unknown> = {};
  for (const [k, spec] of Object.entries(CONFIG_KEYS)) {
    out[k] = typeof spec.default === 'object' && spec.default !== null ? structuredClone(spec.default) : spec.default;
  }
  return out as Config;
}

export function describeType(spec: KeySpec): string {
  switch (spec.type) {
    case 'string':
      return spec.nullable ? 'a string (or null)' : 'a string';
    case 'number': {
      const range =
        spec.min !== undefined && spec.max !== undefined
          ? ` between ${spec.min} and ${spec.max}`
          : spec.min !== undefined
            ? ` ≥ ${spec.min}`
            : '';
      return `a number${range}`;
    }
    case 'boolean':
      return 'true or false';
    case 'enum':
      return `one of ${spec.values.join(', ')}`;
    case 'string[]':
      return 'a list of strings';
    case 'onStop':
      return 'a list of {prompt, artifact} mappings';
    case 'zones':
      return 'a mapping of zone names to {ssh, path, klaude, sshOptions}';
  }
}

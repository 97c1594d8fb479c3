/**
 * Which of the person's `klaude -- <claude args>` survive a relaunch.
 *
 * - Session-selection flags are klaude's job (it picks --session-id / --resume on every
 *   launch), so they are refused with a pointer to the klaude way.
 * - A positional prompt goes with the first launch only, --name with a first, fresh one.
 * - The root's persona (--agent, --system-prompt, --append-system-prompt and their -file forms)
 *   goes with launches of an interactive root session only: a checked-out sub-agent keeps its own.
 * - Everything else (--model, --permission-mode, --allowedTools, --add-dir, …) is passed
 *   on every launch, including after checkout.
 * - A user --settings is merged with klaude's hook settings (claude takes only one).
 */
import { KlaudeError } from '../lib/errors.js';

const REFUSED: Record<string, string> = {
  '-c': "klaude's own `klaude --continue` (before any `--`) continues the latest klaude session",
  '--continue': "klaude's own `klaude --continue` (before any `--`) continues the latest klaude session",
  '-r': 'use `klaude --resume <id>` or `klaude checkout <id>`',
  '--resume': 'use `klaude --resume <id>` or `klaude checkout <id>`',
  '--session-id': 'klaude chooses the Claude session id itself',
  '--fork-session': 'klaude does not fork sessions',
  '--from-pr': 'klaude chooses which conversation to resume',
  '-p': 'klaude runs the interactive claude; use `klaude start` for headless agents',
  '--print': 'klaude runs the interactive claude; use `klaude start` for headless agents',
  '--bg': 'klaude runs claude in the foreground',
  '--background': 'klaude runs claude in the foreground',
  '-w': 'a worktree changes the project directory, which breaks resume; run klaude inside the worktree',
  '--worktree': 'a worktree changes the project directory, which breaks resume; run klaude inside the worktree',
  '--bare':
    "it skips hooks, and klaude's records of the session come from its hooks; run plain `claude --bare` instead",
  '--safe-mode':
    "it suspends hooks, and klaude's records of the session come from its hooks; run plain `claude --safe-mode` instead",
};

const SINGLE_VALUE = new Set([
  '--agent',
  '--agents',
  '--append-system-prompt',
  '--append-system-prompt-file',
  '--debug-file',
  '--effort',
  '--fallback-model',
  '--input-format',
  '--json-schema',
  '--max-budget-usd',
  '--model',
  '-n',
  '--name',
  '--output-format',
  '--permission-mode',
  '--plugin-dir',
  '--plugin-url',
  '--remote-control-session-name-prefix',
  '--setting-sources',
  '--settings',
  '--system-prompt',
  '--system-prompt-file',
]);
/** `--flag [value]`: claude takes the next word as the value unless it is a flag. */
const OPTIONAL_VALUE = new Set(['-d', '--debug', '--prompt-suggestions', '--remote-control']);
const VARIADIC = new Set([
  '--add-dir',
  '--allowedTools',
  '--allowed-tools',
  '--disallowedTools',
  '--disallowed-tools',
  '--betas',
  '--file',
  '--mcp-config',
  '--tools',
]);
const FIRST_LAUNCH_ONLY = new Set(['-n', '--name']);
const ROOT_ONLY = new Set([
  '--agent',
  '--system-prompt',
  '--system-prompt-file',
  '--append-system-prompt',
  '--append-system-prompt-file',
]);
/** Short flags that take a value: in a cluster like `-cn foo` the value starts after them. */
const SHORT_WITH_VALUE = new Set(['-n', '-d', '-r', '-w']);

export interface ClaudePassthrough {
  /** Passed on every launch. */
  persistent: string[];
  /** Passed on the first (fresh) launch only: --name. */
  firstOnly: string[];
  /** The initial prompt words, first launch only. */
  prompt: string[];
  /** The person's own --settings value (JSON text or a file path), merged with ours. */
  userSettings?: string;
}

const refuse = (name: string): never => {
  throw new KlaudeError('E_USAGE', `claude flag '${name}' can't be passed through klaude`, { hint: REFUSED[name] });
};

/** `--name=v` → ['--name', 'v']; `-nv` → ['-n', 'v']; a cluster `-ab` is checked letter by letter. */
function splitFlag(tok: string): [string, string | undefined] {
  if (tok.startsWith('--')) {
    const eq = tok.indexOf('=');
    return eq > 0 ? [tok.slice(0, eq), tok.slice(eq + 1)] : [tok, undefined];
  }
  if (/^-[A-Za-z]./.test(tok)) {
    for (let j = 1; j < tok.length; j++) {
      const f = `-${tok[j]}`;
      if (f in REFUSED) refuse(f);
      if (SHORT_WITH_VALUE.has(f)) return j === 1 ? [f, tok.slice(2)] : [tok, undefined];
    }
  }
  return [tok, undefined];
}

export function parseClaudePassthrough(args: string[]): ClaudePassthrough {
  const out: ClaudePassthrough = { persistent: [], firstOnly: [], prompt: [] };
  for (let i = 0; i < args.length; i++) {
    const tok = args[i]!;
    if (tok === '--') {
      out.prompt.push(...args.slice(i + 1)); // claude's own "end of flags": the rest is the prompt
      break;
    }
    if (!tok.startsWith('-') || tok === '-') {
      out.prompt.push(tok);
      continue;
    }
    const [name, inline] = splitFlag(tok);
    if (name in REFUSED) refuse(name);
    if (name === '--settings') {
      const value = inline ?? args[++i];
      if (value === undefined) throw new KlaudeError('E_USAGE', "claude flag '--settings' needs a value");
      out.userSettings = value;
      continue;
    }
    const target = FIRST_LAUNCH_ONLY.has(name) ? out.firstOnly : out.persistent;
    target.push(tok);
    if (inline !== undefined) continue;
    const next = args[i + 1];
    if (SINGLE_VALUE.has(name)) {
      if (next === undefined) throw new KlaudeError('E_USAGE', `claude flag '${name}' needs a value`);
      target.push(args[++i]!);
    } else if (OPTIONAL_VALUE.has(name)) {
      if (next !== undefined && !next.startsWith('-')) target.push(args[++i]!);
    } else if (VARIADIC.has(name)) {
      while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) target.push(args[++i]!);
    }
  }
  return out;
}

export type LaunchMode = { kind: 'new'; claudeSessionId: string } | { kind: 'resume'; claudeSessionId: string };

/**
 * claude's argv for one launch. The prompt goes with the supervisor's first launch (fresh or
 * resumed: `klaude --resume-last -- "keep going"`); --name only with a first, fresh one; the
 * root-only flags only when `root` (the launch is of an interactive root session, not an agent).
 */
export function buildLaunchArgs(
  p: ClaudePassthrough,
  mode: LaunchMode,
  settingsJson: string,
  first: boolean,
  opts: { root?: boolean } = {},
): string[] {
  const session = mode.kind === 'new' ? ['--session-id', mode.claudeSessionId] : ['--resume', mode.claudeSessionId];
  const fresh = first && mode.kind === 'new';
  // The prompt goes last, after `--`, so a variadic flag before it can't swallow it.
  const prompt = first && p.prompt.length ? ['--', p.prompt.join(' ')] : [];
  const persistent = opts.root === false ? withoutRootOnly(p.persistent) : p.persistent;
  return [...session, '--settings', settingsJson, ...persistent, ...(fresh ? p.firstOnly : []), ...prompt];
}

/** `persistent` minus the root-only flags and their values (walked with the parser's own arity rules). */
function withoutRootOnly(tokens: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const tok = tokens[i]!;
    const [name, inline] = tok.startsWith('--') ? splitFlag(tok) : [tok, undefined];
    let end = i;
    if (inline === undefined) {
      if (SINGLE_VALUE.has(name)) end = i + 1;
      else if (OPTIONAL_VALUE.has(name) && tokens[i + 1] !== undefined && !tokens[i + 1]!.startsWith('-')) end = i + 1;
      else if (VARIADIC.has(name)) while (end + 1 < tokens.length && !tokens[end + 1]!.startsWith('-')) end++;
    }
    if (!ROOT_ONLY.has(name)) out.push(...tokens.slice(i, end + 1));
    i = end;
  }
  return out;
}

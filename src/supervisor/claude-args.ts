/**
 * Which of the person's `klaude -- <claude args>` survive a relaunch.
 *
 * - Session-selection flags are klaude's job (it picks --session-id / --resume on every
 *   launch), so they are refused with a pointer to the klaude way.
 * - A positional prompt and --name only make sense for the first, fresh launch.
 * - Everything else (--model, --permission-mode, --allowedTools, --add-dir, …) is passed
 *   on every launch, including after checkout.
 * - A user --settings is merged with klaude's hook settings (claude takes only one).
 */
import { KlaudeError } from '../lib/errors.js';

const REFUSED: Record<string, string> = {
  '-c': 'use `klaude --resume-last` to continue the latest klaude session',
  '--continue': 'use `klaude --resume-last` to continue the latest klaude session',
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
};

const SINGLE_VALUE = new Set([
  '--agent', '--agents', '--append-system-prompt', '--append-system-prompt-file', '--debug-file', '--effort',
  '--fallback-model', '--input-format', '--json-schema', '--max-budget-usd', '--model', '-n', '--name',
  '--output-format', '--permission-mode', '--plugin-dir', '--plugin-url', '--remote-control-session-name-prefix',
  '--setting-sources', '--settings', '--system-prompt', '--system-prompt-file',
]);
const VARIADIC = new Set([
  '--add-dir', '--allowedTools', '--allowed-tools', '--disallowedTools', '--disallowed-tools', '--betas', '--file',
  '--mcp-config', '--tools',
]);
const FIRST_LAUNCH_ONLY = new Set(['-n', '--name']);

export interface ClaudePassthrough {
  /** Passed on every launch. */
  persistent: string[];
  /** Passed on the first (fresh) launch only: --name. */
  firstOnly: string[];
  /** The initial prompt words, first fresh launch only. */
  prompt: string[];
  /** The person's own --settings value (JSON text or a file path), merged with ours. */
  userSettings?: string;
}

export function parseClaudePassthrough(args: string[]): ClaudePassthrough {
  const out: ClaudePassthrough = { persistent: [], firstOnly: [], prompt: [] };
  for (let i = 0; i < args.length; i++) {
    const tok = args[i]!;
    const [name, inline] = tok.startsWith('--') && tok.includes('=') ? [tok.slice(0, tok.indexOf('=')), tok.slice(tok.indexOf('=') + 1)] : [tok, undefined];
    if (name in REFUSED) {
      throw new KlaudeError('E_USAGE', `claude flag '${name}' can't be passed through klaude`, { hint: REFUSED[name] });
    }
    if (!tok.startsWith('-') || tok === '-') {
      out.prompt.push(tok);
      continue;
    }
    if (name === '--settings') {
      const value = inline ?? args[++i];
      if (value === undefined) throw new KlaudeError('E_USAGE', "claude flag '--settings' needs a value");
      out.userSettings = value;
      continue;
    }
    const target = FIRST_LAUNCH_ONLY.has(name) ? out.firstOnly : out.persistent;
    target.push(tok);
    if (inline !== undefined) continue;
    if (SINGLE_VALUE.has(name)) {
      const v = args[++i];
      if (v === undefined) throw new KlaudeError('E_USAGE', `claude flag '${name}' needs a value`);
      target.push(v);
    } else if (VARIADIC.has(name)) {
      while (i + 1 < args.length && !args[i + 1]!.startsWith('-')) target.push(args[++i]!);
    }
  }
  return out;
}

export type LaunchMode = { kind: 'new'; claudeSessionId: string } | { kind: 'resume'; claudeSessionId: string };

export function buildLaunchArgs(p: ClaudePassthrough, mode: LaunchMode, settingsJson: string, first: boolean): string[] {
  const session = mode.kind === 'new' ? ['--session-id', mode.claudeSessionId] : ['--resume', mode.claudeSessionId];
  const fresh = first && mode.kind === 'new';
  // The prompt goes last, after `--`, so a variadic flag before it can't swallow it.
  const prompt = fresh && p.prompt.length ? ['--', p.prompt.join(' ')] : [];
  return [...session, '--settings', settingsJson, ...p.persistent, ...(fresh ? p.firstOnly : []), ...prompt];
}

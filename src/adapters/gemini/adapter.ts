/**
 * The Gemini CLI adapter: `gemini --prompt=… --output-format stream-json`, one process per turn,
 * stdin closed (docs/cli-facts.md §4.2). klaude picks the session id up front (`--session-id
 * <uuid>`); once gemini has written that session, later runs continue it with `--resume <uuid>`.
 *
 * Gemini has no flag that appends to its system prompt, so klaude's instructions go ahead of the
 * first message of a session. `--skip-trust`: headless gemini refuses untrusted folders (exit 55),
 * and starting an agent in the project is the person's decision to let it work there.
 */
import { randomUuid } from '../../lib/random.js';
import { readdirSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { LaunchCommand, LaunchInput, RuntimeAdapter } from '../runtime-adapter.js';
import { resolveCliBinary, type CliSpec } from '../cli-binary.js';
import { createGeminiNormaliser } from './normaliser.js';
import { withInstructions } from '../json-line.js';

export const GEMINI_CLI: CliSpec = {
  runtime: 'gemini',
  label: 'Gemini CLI',
  commands: ['gemini'],
  configKey: 'gemini.binary',
  install: 'npm i -g @google/gemini-cli',
  packages: ['@google/gemini-cli'],
};

/** Permission mode → gemini `--approval-mode`. */
export function geminiApprovalMode(mode: string | null | undefined): 'default' | 'auto_edit' | 'yolo' | 'plan' {
  if (mode === 'bypassPermissions' || mode === 'dontAsk' || mode === 'auto') return 'yolo';
  if (mode === 'plan') return 'plan';
  if (mode === 'default') return 'default';
  return 'auto_edit';
}

export function buildGeminiCommand(input: LaunchInput): LaunchCommand {
  const resume = input.resume && input.nativeSessionId !== null;
  const prompt = withInstructions(input.prompt, input.appendSystemPrompt, resume);
  // `--prompt=…`: one argument, even when the prompt starts with "-".
  const args = [`--prompt=${prompt}`, '--output-format', 'stream-json', '--skip-trust'];
  if (input.nativeSessionId) args.push(resume ? '--resume' : '--session-id', input.nativeSessionId);
  args.push('--approval-mode', geminiApprovalMode(input.permissionMode));
  if (input.model) args.push('-m', input.model);
  // No self-relaunch: gemini otherwise restarts itself in a child node process (for a bigger heap),
  // which costs a second start-up and keeps SIGINT (klaude's interrupt) from reaching the worker.
  return { file: input.binary, args, env: { GEMINI_CLI_NO_RELAUNCH: 'true' }, stdin: 'closed' };
}

/** `$GEMINI_CLI_HOME/.gemini` (default `~/.gemini`). */
function geminiDir(env: NodeJS.ProcessEnv): string {
  return path.join(env.GEMINI_CLI_HOME || env.HOME || os.homedir(), '.gemini');
}

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/**
 * Gemini's chat file of a session: `<gemini dir>/tmp/<project id>/chats/session-<time>-<uuid8>.jsonl`,
 * the project id from `projects.json` (else every project is searched). When none exists yet,
 * a path that does not exist (so the runtime starts the session instead of resuming it).
 */
export function geminiTranscriptPath(cwd: string, id: string, env: NodeJS.ProcessEnv): string {
  const dir = geminiDir(env);
  let project: string | undefined;
  try {
    const reg = JSON.parse(readFileSync(path.join(dir, 'projects.json'), 'utf8')) as {
      projects?: Record<string, string>;
    };
    project = reg.projects?.[cwd];
  } catch {
    /* no registry yet */
  }
  const projects = project
    ? [project, ...listDir(path.join(dir, 'tmp')).filter((p) => p !== project)]
    : listDir(path.join(dir, 'tmp'));
  const suffix = `-${id.slice(0, 8)}.jsonl`;
  for (const p of projects) {
    const chats = path.join(dir, 'tmp', p, 'chats');
    for (const f of listDir(chats)) {
      if (!f.startsWith('session-') || !f.endsWith(suffix)) continue;
      const file = path.join(chats, f);
      try {
        if (readFileSync(file, 'utf8').slice(0, 400).includes(id)) return file;
      } catch {
        /* unreadable: keep looking */
      }
    }
  }
  return path.join(dir, 'tmp', project ?? path.basename(cwd), 'chats', `session-${id}.jsonl`);
}

export const geminiAdapter: RuntimeAdapter = {
  name: 'gemini',
  supportsStreamingInput: false,
  choosesSessionIdUpFront: true,
  resolveBinary: (config, env) => resolveCliBinary(GEMINI_CLI, config, env),
  newSessionId: () => randomUuid(),
  buildCommand: buildGeminiCommand,
  createNormaliser: () => createGeminiNormaliser(),
  encodeMessage: () => {
    throw new Error('gemini -p takes no input on stdin');
  },
  encodeInterrupt: () => null,
  transcriptPath: geminiTranscriptPath,
  interactiveResume: (binary, id) => ({ file: binary, args: ['--resume', id] }),
  // docs/cli-notes.md, "gemini's sandboxes": its per-command bubblewrap binds all of / read-only
  // (hiding only `.geminiignore`d workspace paths), and its --sandbox needs a container engine.
  noSandbox: "gemini's tool sandbox cannot hide klaude's home: it hides only .geminiignore'd paths of the workspace",
};

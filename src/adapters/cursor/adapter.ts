/**
 * The Cursor CLI adapter: `cursor-agent -p --output-format stream-json`, one process per turn,
 * stdin closed (docs/cli-facts.md §4.3). Cursor picks the chat id (`session_id` of `system/init`);
 * later runs continue it with `--resume <chatId>`.
 *
 * NOT VERIFIED against a real cursor-agent (closed source, not installable here): flags are the
 * documented ones. Permission modes: cursor only has `--force` (apply edits and run commands
 * without asking) and `--mode plan`, so acceptEdits and the bypass modes map to --force, plan to
 * --mode plan, and default to neither (changes are only proposed). Instructions go ahead of the
 * first message of a chat.
 */
import type { LaunchCommand, LaunchInput, RuntimeAdapter } from '../runtime-adapter.js';
import { resolveCliBinary, type CliSpec } from '../cli-binary.js';
import { createCursorNormaliser } from './normaliser.js';
import { withInstructions } from '../json-line.js';

export const CURSOR_CLI: CliSpec = {
  runtime: 'cursor',
  label: 'Cursor CLI',
  commands: ['cursor-agent', 'agent'],
  configKey: 'cursor.binary',
  install: 'curl https://cursor.com/install -fsS | bash',
  packages: [],
};

export function buildCursorCommand(input: LaunchInput): LaunchCommand {
  const resume = input.resume && input.nativeSessionId !== null;
  const args = ['-p', '--output-format', 'stream-json', '--trust'];
  if (resume) args.push('--resume', input.nativeSessionId!);
  if (input.model) args.push('--model', input.model);
  const mode = input.permissionMode;
  if (mode === 'plan') args.push('--mode', 'plan');
  else if (mode && mode !== 'default') args.push('--force');
  args.push('--', withInstructions(input.prompt, input.appendSystemPrompt, resume));
  return { file: input.binary, args, env: {}, stdin: 'closed' };
}

export const cursorAdapter: RuntimeAdapter = {
  name: 'cursor',
  supportsStreamingInput: false,
  choosesSessionIdUpFront: false,
  resolveBinary: (config, env) => resolveCliBinary(CURSOR_CLI, config, env),
  newSessionId: () => {
    throw new Error('cursor-agent chooses its own chat id');
  },
  buildCommand: buildCursorCommand,
  createNormaliser: () => createCursorNormaliser(),
  encodeMessage: () => {
    throw new Error('cursor-agent -p takes no input on stdin');
  },
  encodeInterrupt: () => null,
  interactiveResume: (binary, id) => ({ file: binary, args: ['--resume', id] }),
};

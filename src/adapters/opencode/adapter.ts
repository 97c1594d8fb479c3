/**
 * The opencode adapter: `opencode run --format json`, one process per turn, the prompt on stdin
 * (docs/cli-facts.md §4.4). opencode picks the session id (`ses_…`, on every line as `sessionID`);
 * later runs continue it with `-s <id>`. 1.18.33 prints no final event, so a turn ends when the
 * process exits (the normaliser's `end`).
 *
 * No system-prompt flag: klaude's instructions go ahead of the first message of a session.
 * MCP servers go in through OPENCODE_CONFIG_CONTENT (merged into opencode's own config).
 */
import { readFileSync } from 'node:fs';
import type { LaunchCommand, LaunchInput, RuntimeAdapter } from '../runtime-adapter.js';
import { resolveCliBinary, type CliSpec } from '../cli-binary.js';
import { isObj, withInstructions } from '../json-line.js';
import { createOpencodeNormaliser } from './normaliser.js';

export const OPENCODE_CLI: CliSpec = {
  runtime: 'opencode',
  label: 'opencode',
  commands: ['opencode'],
  configKey: 'opencode.binary',
  install: 'npm i -g opencode-ai',
  packages: [
    'opencode-ai',
    'opencode-linux-x64',
    'opencode-linux-x64-baseline',
    'opencode-linux-arm64',
    'opencode-darwin-arm64',
    'opencode-darwin-x64',
  ],
};

/** `{"mcpServers":{…}}` (inline JSON or a file) → opencode's `{"mcp":{name:{type,command|url,…}}}`, or null. */
export function opencodeMcpConfig(mcpConfig: string | null | undefined): string | null {
  if (!mcpConfig) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(mcpConfig.trim().startsWith('{') ? mcpConfig : readFileSync(mcpConfig, 'utf8'));
  } catch {
    return null;
  }
  const servers = isObj(parsed) && isObj(parsed.mcpServers) ? parsed.mcpServers : {};
  const mcp: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(servers)) {
    if (!isObj(spec)) continue;
    if (typeof spec.command === 'string') {
      const args = Array.isArray(spec.args) ? spec.args.filter((a): a is string => typeof a === 'string') : [];
      mcp[name] = {
        type: 'local',
        command: [spec.command, ...args],
        ...(isObj(spec.env) ? { environment: spec.env } : {}),
      };
    } else if (typeof spec.url === 'string') {
      mcp[name] = { type: 'remote', url: spec.url, ...(isObj(spec.headers) ? { headers: spec.headers } : {}) };
    }
  }
  return Object.keys(mcp).length > 0 ? JSON.stringify({ mcp }) : null;
}

export function buildOpencodeCommand(input: LaunchInput): LaunchCommand {
  const resume = input.resume && input.nativeSessionId !== null;
  const args = ['run', '--format', 'json'];
  if (resume) args.push('-s', input.nativeSessionId!);
  if (input.model) args.push('-m', input.model);
  if (input.effort) args.push('--variant', input.effort);
  const env: Record<string, string | undefined> = {};
  // Permission asks are auto-rejected in `run` (and a rejection ends the run): acceptEdits allows
  // edits (OPENCODE_PERMISSION is merged into opencode's `permission` config), the bypass modes
  // approve every ask (--auto), plan runs opencode's read-only plan agent.
  const mode = input.permissionMode;
  if (mode === 'bypassPermissions' || mode === 'dontAsk' || mode === 'auto') args.push('--auto');
  else if (mode === 'plan') args.push('--agent', 'plan');
  else if (mode === 'acceptEdits') env.OPENCODE_PERMISSION = JSON.stringify({ edit: 'allow' });
  const mcp = opencodeMcpConfig(input.mcpConfig);
  if (mcp) env.OPENCODE_CONFIG_CONTENT = mcp;
  // The prompt goes on stdin: `run` puts quotes around every message argument that contains a
  // space, while piped input is taken exactly as it is.
  return {
    file: input.binary,
    args,
    env,
    stdin: 'text',
    stdinText: withInstructions(input.prompt, input.appendSystemPrompt, resume),
  };
}

export const opencodeAdapter: RuntimeAdapter = {
  name: 'opencode',
  supportsStreamingInput: false,
  choosesSessionIdUpFront: false,
  resolveBinary: (config, env) => resolveCliBinary(OPENCODE_CLI, config, env),
  newSessionId: () => {
    throw new Error('opencode chooses its own session id');
  },
  buildCommand: buildOpencodeCommand,
  createNormaliser: () => createOpencodeNormaliser(),
  encodeMessage: () => {
    throw new Error('opencode run takes no input on stdin');
  },
  encodeInterrupt: () => null,
  interactiveResume: (binary, id) => ({ file: binary, args: ['-s', id] }),
  // docs/cli-notes.md, "opencode": its `permission` rules check tool calls; nothing confines a command.
  noSandbox: 'opencode has no sandbox',
};

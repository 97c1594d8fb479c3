/**
 * The OpenAI Codex CLI adapter: `codex exec --json`, one process per turn, stdin closed
 * (docs/cli-facts.md §4.1). Codex picks the thread id; klaude learns it from `thread.started` and
 * continues the thread with `codex exec resume <thread_id>` (same id, same rollout file).
 *
 * Settings go in as `-c key=value` TOML overrides, which both `exec` and `exec resume` accept:
 * the sandbox (from the permission mode), klaude's instructions (`developer_instructions`), the
 * reasoning effort, and MCP servers (`mcp_servers.<name>`).
 *
 * Its sandbox (bubblewrap on Linux) gets a helper link on PATH and a check before each run:
 * sandbox.ts says why. A sandboxed agent's commands run in it with klaude's boundary as a
 * permission profile (sandbox-profile.ts).
 */
import { readFileSync } from 'node:fs';
import type { LaunchCommand, LaunchInput, RuntimeAdapter } from '../runtime-adapter.js';
import { resolveCliBinary, type CliSpec } from '../cli-binary.js';
import { createCodexNormaliser } from './normaliser.js';
import { isObj } from '../json-line.js';
import { codexHelperDirs, codexSandboxCheck, codexSandboxEngine } from './sandbox.js';
import { codexConfigOf, codexSandboxLaunch } from './sandbox-profile.js';

export const CODEX_CLI: CliSpec = {
  runtime: 'codex',
  label: 'OpenAI Codex CLI',
  commands: ['codex'],
  configKey: 'codex.binary',
  install: 'npm i -g @openai/codex',
  packages: ['@openai/codex'],
};

/** A TOML value for `-c key=value`: strings, numbers, booleans, arrays and inline tables. */
export function tomlValue(v: unknown): string {
  if (typeof v === 'string') return JSON.stringify(v);
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (Array.isArray(v)) return `[${v.map(tomlValue).join(', ')}]`;
  if (isObj(v))
    return `{ ${Object.entries(v)
      .filter(([, x]) => x !== undefined && x !== null)
      .map(([k, x]) => `${JSON.stringify(k)} = ${tomlValue(x)}`)
      .join(', ')} }`;
  return '""';
}

/** Permission mode → codex sandbox (`null` = no sandbox and no approvals at all). */
export function codexSandbox(mode: string | null | undefined): 'read-only' | 'workspace-write' | null {
  if (mode === 'bypassPermissions') return null;
  if (mode === 'plan' || mode === 'default') return 'read-only';
  return 'workspace-write';
}

/** `{"mcpServers":{name:{command,args,env}|{url}}}` (inline JSON or a file) → `-c mcp_servers.<name>=…`. */
function mcpOverrides(mcpConfig: string | null | undefined): string[] {
  if (!mcpConfig) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(mcpConfig.trim().startsWith('{') ? mcpConfig : readFileSync(mcpConfig, 'utf8'));
  } catch {
    return [];
  }
  const servers = isObj(parsed) && isObj(parsed.mcpServers) ? parsed.mcpServers : {};
  const out: string[] = [];
  for (const [name, spec] of Object.entries(servers)) {
    if (!isObj(spec) || !/^[\w-]+$/.test(name)) continue;
    const table: Record<string, unknown> = {};
    if (typeof spec.command === 'string') {
      table.command = spec.command;
      if (Array.isArray(spec.args)) table.args = spec.args.filter((a) => typeof a === 'string');
      if (isObj(spec.env)) table.env = spec.env;
    } else if (typeof spec.url === 'string') {
      table.url = spec.url;
    } else continue;
    out.push('-c', `mcp_servers.${name}=${tomlValue(table)}`);
  }
  return out;
}

/** `-c key=value` for each override (a sandboxed launch's profile: sandbox-profile.ts). */
export function configArgs(config: Record<string, unknown>): string[] {
  return Object.entries(config).flatMap(([k, v]) => ['-c', `${k}=${tomlValue(v)}`]);
}

/**
 * How codex confines its commands: klaude's profile when klaude sandboxes the agent (no
 * `sandbox_mode` then: codex would take it over any profile), else the permission mode's sandbox.
 */
function sandboxArgs(input: LaunchInput): string[] {
  const profile = codexConfigOf(input.settings);
  if (profile) return configArgs(profile);
  const sandbox = codexSandbox(input.permissionMode);
  return sandbox ? ['-c', `sandbox_mode=${tomlValue(sandbox)}`] : ['--dangerously-bypass-approvals-and-sandbox'];
}

export function buildCodexCommand(input: LaunchInput): LaunchCommand {
  const resume = input.resume && input.nativeSessionId !== null;
  const args = ['exec'];
  if (resume) args.push('resume');
  args.push('--json', '--skip-git-repo-check');
  args.push(...sandboxArgs(input));
  if (input.model) args.push('-m', input.model);
  if (input.effort) args.push('-c', `model_reasoning_effort=${tomlValue(input.effort)}`);
  if (input.appendSystemPrompt) args.push('-c', `developer_instructions=${tomlValue(input.appendSystemPrompt)}`);
  args.push(...mcpOverrides(input.mcpConfig));
  if (input.outputSchema) args.push('--output-schema', input.outputSchema);
  // `--`: a prompt starting with "-" is still the prompt.
  args.push('--');
  if (resume) args.push(input.nativeSessionId!);
  args.push(input.prompt ?? '');
  return { file: input.binary, args, env: {}, stdin: 'closed' };
}

export const codexAdapter: RuntimeAdapter = {
  name: 'codex',
  supportsStreamingInput: false,
  choosesSessionIdUpFront: false,
  resolveBinary: (config, env) => resolveCliBinary(CODEX_CLI, config, env),
  newSessionId: () => {
    throw new Error('codex chooses its own thread id');
  },
  buildCommand: buildCodexCommand,
  pathHelpers: (binary, home) => codexHelperDirs(binary, home),
  sandboxCheck: (input) => {
    const profile = codexConfigOf(input.settings);
    if (profile) return codexSandboxCheck(input, configArgs(profile));
    const sandbox = codexSandbox(input.permissionMode);
    return sandbox ? codexSandboxCheck(input, sandbox) : null;
  },
  createNormaliser: () => createCodexNormaliser(),
  encodeMessage: () => {
    throw new Error('codex exec takes no input on stdin');
  },
  encodeInterrupt: () => null,
  interactiveResume: (binary, id) => ({ file: binary, args: ['resume', id] }),
  sandbox: { check: (env) => codexSandboxEngine(env), launch: codexSandboxLaunch },
};

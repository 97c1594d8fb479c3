/**
 * The command line and environment a runtime starts its agent's CLI with: the adapter's command
 * from the session's launch metadata and config, the klaude PATH shim, and the session's ids. A
 * sandboxed agent (sandbox-launch.ts) also gets its CLI's sandbox settings and, as `klaude` on its
 * PATH, its channel's client instead of the shim.
 */
import { currentInvocation, ensureShim, prependPath } from '../claude/shim.js';
import { headlessHookSettings } from '../hooks/settings.js';
import { agentSettingsArg, agentSettingsFile } from '../hooks/agent-settings.js';
import type { LaunchCommand } from '../adapters/runtime-adapter.js';
import { permissionModeFor } from './approval-desk.js';
import { agentPreamble, systemPromptAddition } from '../agent-ops/instructions.js';
import { agentSandbox, sandboxLaunch, type AgentSandbox } from './sandbox-launch.js';
import type { Deps } from './deps.js';

export interface CliLaunch {
  cmd: LaunchCommand;
  env: NodeJS.ProcessEnv;
  /** Set when the agent runs sandboxed: its channel must be open before the CLI starts. */
  sandbox: AgentSandbox | null;
}

export function cliLaunch(d: Deps, o: { nativeId: string | null; resume: boolean; first: string }): CliLaunch {
  const { adapter, config, meta, session } = d;
  const inv = currentInvocation();
  let permissionMode: string | null = permissionModeFor(
    adapter,
    meta.agent.permissionMode ?? config['agents.permissionMode'],
  );
  const sandbox = agentSandbox(d, inv, permissionMode);
  let settings: string | null = session.runtime === 'claude' ? headlessHookSettings(inv) : null;
  if (sandbox) {
    const s = sandboxLaunch(d, sandbox, permissionMode);
    permissionMode = s.permissionMode;
    settings = JSON.stringify({ ...(settings ? (JSON.parse(settings) as object) : {}), ...s.settings });
  }
  const cmd = adapter.buildCommand({
    binary: adapter.resolveBinary(config, d.env),
    cwd: meta.cwd,
    nativeSessionId: o.nativeId,
    resume: o.resume,
    forkFrom: forkOrigin(session.metadata),
    prompt: adapter.supportsStreamingInput ? undefined : o.first,
    model: session.model,
    permissionMode,
    approvals: adapter.encodeApproval !== undefined,
    allowedTools: [...config['agents.allowedTools'], ...meta.agent.allowedTools],
    tools: meta.agent.tools ?? null,
    disallowedTools: meta.agent.disallowedTools ?? [],
    appendSystemPrompt: systemPromptAddition(
      meta.agent.instructions,
      agentPreamble({ sessionId: session.id, type: session.type, parentId: session.parentId }),
    ),
    mcpConfig: meta.agent.mcpConfig,
    mcpStrict: meta.agent.mcpStrict ?? true,
    effort: meta.agent.effort,
    settings:
      settings === null
        ? null
        : agentSettingsArg(settings, {
            cwd: meta.cwd,
            worktreePath: session.worktreePath,
            projectRoot: meta.projectRoot,
            file: agentSettingsFile(d.home, session.projectId, session.id, 'headless'),
          }),
  });
  // Sandboxed, `klaude` is the channel's client: the shim's klaude could reach nothing from there.
  const binDir = sandbox ? sandbox.paths.bin : ensureShim(d.home, inv);
  const env: NodeJS.ProcessEnv = {
    ...d.env,
    KLAUDE_HOME: d.home,
    KLAUDE_PROJECT_HASH: session.projectId,
    // The project's root (a worktree agent works elsewhere: this is the tree it came from).
    KLAUDE_PROJECT_PATH: meta.projectRoot,
    KLAUDE_SESSION_ID: session.id,
    PATH: prependPath(binDir, d.env.PATH),
  };
  return { cmd, env, sandbox };
}

/** `klaude fork`: the origin's Claude id, kept in the metadata (its first run forks it; later ones resume the fork). */
function forkOrigin(metadata: Record<string, unknown> | null): string | null {
  const v = metadata?.forkOf;
  return typeof v === 'string' ? v : null;
}

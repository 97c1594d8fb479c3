/**
 * The command line and environment a runtime starts its agent's CLI with: the adapter's command
 * from the session's launch metadata and config, the klaude PATH shim (first on PATH), the CLI's own
 * helper links (last), the session's ids, and the CLI's sandbox check.
 */
import { delimiter } from 'node:path';
import { currentInvocation, ensureShim, prependPath } from '../claude/shim.js';
import { headlessHookSettings } from '../hooks/settings.js';
import { agentSettingsArg, agentSettingsFile } from '../hooks/agent-settings.js';
import type { LaunchCommand, LaunchInput, SandboxCheck } from '../adapters/runtime-adapter.js';
import { permissionModeFor } from './approval-desk.js';
import { agentPreamble, systemPromptAddition } from '../agent-ops/instructions.js';
import type { Deps } from './deps.js';

export interface CliLaunch {
  cmd: LaunchCommand;
  env: NodeJS.ProcessEnv;
  /** The CLI's own sandbox, to try before the launch (runtime/sandbox-check.ts); null: none. */
  check: SandboxCheck | null;
}

export function cliLaunch(d: Deps, o: { nativeId: string | null; resume: boolean; first: string }): CliLaunch {
  const { adapter, session } = d;
  const input = launchInput(d, o);
  const cmd = adapter.buildCommand(input);
  const shimDir = ensureShim(d.home, currentInvocation());
  const env: NodeJS.ProcessEnv = {
    ...d.env,
    KLAUDE_HOME: d.home,
    KLAUDE_PROJECT_HASH: session.projectId,
    // The project's root (a worktree agent works elsewhere: this is the tree it came from).
    KLAUDE_PROJECT_PATH: d.meta.projectRoot,
    KLAUDE_SESSION_ID: session.id,
    PATH: withHelpers(prependPath(shimDir, d.env.PATH), pathHelpers(d, input.binary)),
  };
  return { cmd, env, check: adapter.sandboxCheck?.(input) ?? null };
}

/**
 * The CLI's helper directories (codex's sandbox helper link), last on its PATH: they only add
 * names nothing else has. One that cannot be made is left out (the sandbox check then tells).
 */
function pathHelpers(d: Deps, binary: string): string[] {
  try {
    return d.adapter.pathHelpers?.(binary, d.home) ?? [];
  } catch (err) {
    d.log.warn("cannot prepare the agent CLI's helper links", { err });
    return [];
  }
}

function withHelpers(pathVar: string, helpers: string[]): string {
  const rest = pathVar.split(delimiter).filter((p) => p && !helpers.includes(p));
  return [...rest, ...helpers].join(delimiter);
}

function launchInput(d: Deps, o: { nativeId: string | null; resume: boolean; first: string }): LaunchInput {
  const { adapter, config, meta, session } = d;
  return {
    binary: adapter.resolveBinary(config, d.env),
    cwd: meta.cwd,
    nativeSessionId: o.nativeId,
    resume: o.resume,
    forkFrom: forkOrigin(session.metadata),
    prompt: adapter.supportsStreamingInput ? undefined : o.first,
    model: session.model,
    permissionMode: permissionModeFor(adapter, meta.agent.permissionMode ?? config['agents.permissionMode']),
    approvals: adapter.encodeApproval !== undefined,
    allowedTools: [...config['agents.allowedTools'], ...meta.agent.allowedTools],
    tools: meta.agent.tools ?? null,
    disallowedTools: meta.agent.disallowedTools ?? [],
    appendSystemPrompt: systemPromptAddition(
      meta.agent.instructions,
      agentPreamble({
        sessionId: session.id,
        type: session.type,
        parentId: session.parentId,
        fork: forkTrees(session),
      }),
    ),
    mcpConfig: meta.agent.mcpConfig,
    mcpStrict: meta.agent.mcpStrict ?? true,
    effort: meta.agent.effort,
    settings:
      session.runtime === 'claude'
        ? agentSettingsArg(headlessHookSettings(currentInvocation()), {
            cwd: meta.cwd,
            worktreePath: session.worktreePath,
            projectRoot: meta.projectRoot,
            file: agentSettingsFile(d.home, session.projectId, session.id, 'headless'),
          })
        : null,
  };
}

/** A fork of a worktree agent: where its origin worked and where it works (agent-ops/fork.ts furnishFork). */
function forkTrees(s: Deps['session']): { origin: string; originTree: string; tree: string } | null {
  const originTree = s.metadata?.forkOfWorktree;
  return s.forkedFrom && s.worktreePath && typeof originTree === 'string'
    ? { origin: s.forkedFrom, originTree, tree: s.worktreePath }
    : null;
}

/** `klaude fork`: the origin's Claude id, kept in the metadata (its first run forks it; later ones resume the fork). */
function forkOrigin(metadata: Record<string, unknown> | null): string | null {
  const v = metadata?.forkOf;
  return typeof v === 'string' ? v : null;
}

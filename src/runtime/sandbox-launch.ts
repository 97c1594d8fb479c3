/**
 * A sandboxed agent's launch (docs/sandbox.md): the boundary of its commands from its session's
 * records and the config, what its CLI's sandbox makes of it, and its channel — `klaude` on its
 * PATH is the channel's client, and the klaude each request runs gets the agent's environment with
 * its scope. Unsandboxed agents (metadata `sandbox.state` other than `sandboxed`) get none of it.
 */
import path from 'node:path';
import { runDir } from '../config/paths.js';
import { currentInvocation, type KlaudeInvocation } from '../claude/shim.js';
import { sandboxBoundary, workingTree, type SandboxBoundary } from '../sandbox/boundary.js';
import { channelPaths, SCOPE_ENV, type ChannelPaths } from '../sandbox/channel-paths.js';
import type { SandboxLaunch } from '../adapters/runtime-adapter.js';
import { AgentChannel, type ChannelOptions } from './agent-channel.js';
import type { Deps } from './deps.js';
import type { AgentEventInput } from '../core/events.js';
import { sandboxBlocks } from '../sandbox/violations.js';

export interface AgentSandbox {
  boundary: SandboxBoundary;
  paths: ChannelPaths;
}

/** The tree the agent works in (sandbox/boundary.ts `workingTree`): what its commands may write. */
function agentTree(d: Deps): string {
  return d.session.worktreePath ?? workingTree(d.meta.cwd);
}

/** The agent's sandbox, or null when it runs unsandboxed. */
export function agentSandbox(d: Deps, inv: KlaudeInvocation, permissionMode: string | null): AgentSandbox | null {
  const { session, meta, config } = d;
  if (meta.sandbox?.state !== 'sandboxed') return null;
  const paths = channelPaths(runDir(d.home, d.env), session.projectId, session.id);
  const boundary = sandboxBoundary({
    home: d.home,
    runDir: runDir(d.home, d.env),
    logsDir: config['logs.dir'],
    projectRoot: meta.projectRoot,
    cwd: meta.cwd,
    tree: agentTree(d),
    channel: paths,
    codeDir: path.dirname(inv.cli),
    allowWrite: config['sandbox.allowWrite'],
    allowedDomains: config['sandbox.allowedDomains'],
    modelUrl: d.env.ANTHROPIC_BASE_URL ?? null,
    permissionMode,
    userHome: d.env.HOME ?? '/',
  });
  return { boundary, paths };
}

/** What the adapter's sandbox makes of the boundary; throws when the CLI has none (its record said sandboxed). */
export function sandboxLaunch(d: Deps, sb: AgentSandbox, permissionMode: string | null): SandboxLaunch {
  const support = d.adapter.sandbox;
  if (!support) throw new Error(`${d.adapter.name} has no sandbox klaude drives, but this agent was started sandboxed`);
  return support.launch(sb.boundary, permissionMode);
}

/** The channel of a sandboxed agent: requests run as the agent's klaude, scoped to it. */
export function channelOptions(
  d: Deps,
  sb: AgentSandbox,
  inv: KlaudeInvocation,
  cliEnv: NodeJS.ProcessEnv,
): ChannelOptions {
  const env: NodeJS.ProcessEnv = { ...cliEnv, PATH: d.env.PATH, [SCOPE_ENV]: d.session.id };
  const tree = agentTree(d);
  const parentAnswers = d.config['agents.approvals'] === 'parent';
  return { paths: sb.paths, inv, env, parentAnswers, trees: [tree], cwd: d.meta.cwd, log: d.log };
}

/** A sandboxed launch's channel, opened (before its CLI starts); null when the agent is not sandboxed. */
export function openAgentChannel(
  d: Deps,
  launch: { sandbox: AgentSandbox | null; env: NodeJS.ProcessEnv },
): AgentChannel | null {
  if (!launch.sandbox) return null;
  const channel = new AgentChannel(channelOptions(d, launch.sandbox, currentInvocation(), launch.env));
  channel.open();
  return channel;
}

/** A tool result of a sandboxed agent: what its sandbox refused, for the log (sandbox/violations.ts). */
export function markBlocked(e: Extract<AgentEventInput, { type: 'tool_result' }>): void {
  const blocked = sandboxBlocks(e.output);
  if (blocked.length > 0) e.blocked = blocked;
}

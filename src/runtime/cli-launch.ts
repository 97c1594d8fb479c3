/**
 * The command line and environment a runtime starts its agent's CLI with: the adapter's command
 * from the session's launch metadata and config, the klaude PATH shim (first on PATH), the CLI's own
 * helper links (last), the session's ids, and the CLI's sandbox check. A sandboxed agent
 * (sandbox-launch.ts) also gets its CLI's sandbox settings and, as `klaude` on its PATH, its
 * channel's client instead of the shim.
 */
import { currentInvocation, ensureShim, prependPath, type KlaudeInvocation } from '../claude/shim.js';
import { headlessHookSettings } from '../hooks/settings.js';
import { agentSettingsArg, agentSettingsFile } from '../hooks/agent-settings.js';
import type { LaunchCommand, LaunchInput, SandboxCheck } from '../adapters/runtime-adapter.js';
import { permissionModeFor } from './approval-desk.js';
import { agentPreamble, forkNote, systemPromptAddition } from '../agent-ops/instructions.js';
import { agentSandbox, sandboxLaunch, type AgentSandbox } from './sandbox-launch.js';
import type { RuntimeRequest } from '../agent-ops/launch.js';
import type { Deps } from './deps.js';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path, { delimiter } from 'node:path';
import { REVIEW_SCHEMA } from '../core/findings.js';
import { ensurePrivateDir } from '../lib/private-dir.js';

export interface CliLaunch {
  cmd: LaunchCommand;
  env: NodeJS.ProcessEnv;
  /** The CLI's own sandbox, to try before the launch (runtime/sandbox-check.ts); null: none. */
  check: SandboxCheck | null;
  /** Set when the agent runs in klaude's sandbox: its channel must be open before the CLI starts. */
  sandbox: AgentSandbox | null;
}

export function cliLaunch(d: Deps, o: { nativeId: string | null; resume: boolean; first: string }): CliLaunch {
  const { adapter, session } = d;
  const inv = currentInvocation();
  const { input, sandbox } = launchInput(d, o, inv);
  const cmd = adapter.buildCommand(input);
  // Sandboxed, `klaude` is the channel's client: the shim's klaude could reach nothing from there.
  const binDir = sandbox ? sandbox.paths.bin : ensureShim(d.home, inv);
  const env: NodeJS.ProcessEnv = {
    ...d.env,
    KLAUDE_HOME: d.home,
    KLAUDE_PROJECT_HASH: session.projectId,
    // The project's root (a worktree agent works elsewhere: this is the tree it came from).
    KLAUDE_PROJECT_PATH: d.meta.projectRoot,
    KLAUDE_SESSION_ID: session.id,
    PATH: withHelpers(prependPath(binDir, d.env.PATH), pathHelpers(d, input.binary)),
  };
  return { cmd, env, check: adapter.sandboxCheck?.(input) ?? null, sandbox };
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

/** The permission mode and Claude settings, with the sandbox's added when the agent runs in one. */
function modeAndSettings(
  d: Deps,
  inv: KlaudeInvocation,
): { permissionMode: string | null; settings: string | null; sandbox: AgentSandbox | null } {
  const { adapter, config, meta, session } = d;
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
  return { permissionMode, settings, sandbox };
}

function launchInput(
  d: Deps,
  o: { nativeId: string | null; resume: boolean; first: string },
  inv: KlaudeInvocation,
): { input: LaunchInput; sandbox: AgentSandbox | null } {
  const { adapter, config, meta, session } = d;
  const { permissionMode, settings, sandbox } = modeAndSettings(d, inv);
  const input: LaunchInput = {
    binary: adapter.resolveBinary(config, d.env),
    cwd: meta.cwd,
    nativeSessionId: o.nativeId,
    resume: o.resume,
    forkFrom: forkOrigin(session.metadata),
    prompt: adapter.supportsStreamingInput ? undefined : o.first,
    model: session.model,
    permissionMode,
    approvals: adapter.encodeApproval !== undefined,
    // A reviewer's are its read tools only (agent-types/read-only.ts), whatever the config pre-allows.
    allowedTools: session.reviewOf
      ? meta.agent.allowedTools
      : [...config['agents.allowedTools'], ...meta.agent.allowedTools],
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
    // A reviewer's answer is its findings: codex is held to their shape (claude is asked for a block).
    outputSchema: session.reviewOf && !o.resume ? reviewSchemaFile(d.home) : null,
    settings:
      settings === null
        ? null
        : agentSettingsArg(settings, {
            cwd: meta.cwd,
            worktreePath: session.worktreePath,
            projectRoot: meta.projectRoot,
            file: agentSettingsFile(d.home, session.projectId, session.id, 'headless'),
          }),
  };
  return { input, sandbox };
}

/** A fork of a worktree agent: where its origin worked and where it works (agent-ops/fork.ts furnishFork). */
function forkTrees(s: Deps['session']): { origin: string; originTree: string; tree: string } | null {
  const originTree = s.metadata?.forkOfWorktree;
  return s.forkedFrom && s.worktreePath && typeof originTree === 'string'
    ? { origin: s.forkedFrom, originTree, tree: s.worktreePath }
    : null;
}

/** The findings' JSON Schema as a file (codex takes a path), written once per home. */
function reviewSchemaFile(home: string): string {
  const file = path.join(ensurePrivateDir(path.join(home, 'cache')), 'review-schema.json');
  const text = `${JSON.stringify(REVIEW_SCHEMA, null, 2)}\n`;
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return file;
  // Another runtime may be reading it: a whole file, renamed into place.
  const tmp = `${file}.${process.pid}`;
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, file);
  return file;
}

/** `klaude fork`: the origin's Claude id, kept in the metadata (its first run forks it; later ones resume the fork). */
function forkOrigin(metadata: Record<string, unknown> | null): string | null {
  const v = metadata?.forkOf;
  return typeof v === 'string' ? v : null;
}

/** What the CLI is sent first: the prompt, and what was shared with it. */
export function firstPrompt(request: RuntimeRequest, session: Deps['session']): string {
  const prompt = request.share ? `${request.prompt}\n\n${request.share}` : request.prompt;
  // A fork's first run: where it works now, in the conversation itself (instructions.ts forkNote).
  const fork = request.source === 'start' ? forkTrees(session) : null;
  return fork ? `${forkNote(fork)}\n\n${prompt}` : prompt;
}

/**
 * The native session to launch: a new one the first time (its id chosen here when the adapter lets
 * us), the known one resumed once its transcript exists.
 */
export function launchIds(d: Deps, known: string | null): { nativeId: string | null; resume: boolean } {
  const { adapter, meta } = d;
  if (known) {
    const transcript = adapter.transcriptPath?.(meta.cwd, known, d.env);
    return { nativeId: known, resume: transcript ? existsSync(transcript) : true };
  }
  return { nativeId: adapter.choosesSessionIdUpFront ? adapter.newSessionId() : null, resume: false };
}

/**
 * The command line and environment a runtime starts its agent's CLI with: the adapter's command
 * from the session's launch metadata and config, the klaude PATH shim, and the session's ids.
 */
import { currentInvocation, ensureShim, prependPath } from '../claude/shim.js';
import { headlessHookSettings } from '../hooks/settings.js';
import { agentSettingsArg, agentSettingsFile } from '../hooks/agent-settings.js';
import type { LaunchCommand } from '../adapters/runtime-adapter.js';
import { permissionModeFor } from './approval-desk.js';
import { agentPreamble, systemPromptAddition } from '../agent-ops/instructions.js';
import type { Deps } from './deps.js';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { REVIEW_SCHEMA } from '../core/findings.js';
import { ensurePrivateDir } from '../lib/private-dir.js';

export function cliLaunch(
  d: Deps,
  o: { nativeId: string | null; resume: boolean; first: string },
): { cmd: LaunchCommand; env: NodeJS.ProcessEnv } {
  const { adapter, config, meta, session } = d;
  const cmd = adapter.buildCommand({
    binary: adapter.resolveBinary(config, d.env),
    cwd: meta.cwd,
    nativeSessionId: o.nativeId,
    resume: o.resume,
    forkFrom: forkOrigin(session.metadata),
    prompt: adapter.supportsStreamingInput ? undefined : o.first,
    model: session.model,
    permissionMode: permissionModeFor(adapter, meta.agent.permissionMode ?? config['agents.permissionMode']),
    approvals: adapter.encodeApproval !== undefined,
    // A reviewer's are its read tools only (agent-types/read-only.ts), whatever the config pre-allows.
    allowedTools: session.reviewOf
      ? meta.agent.allowedTools
      : [...config['agents.allowedTools'], ...meta.agent.allowedTools],
    tools: meta.agent.tools ?? null,
    disallowedTools: meta.agent.disallowedTools ?? [],
    appendSystemPrompt: systemPromptAddition(
      meta.agent.instructions,
      agentPreamble({ sessionId: session.id, type: session.type, parentId: session.parentId }),
    ),
    mcpConfig: meta.agent.mcpConfig,
    mcpStrict: meta.agent.mcpStrict ?? true,
    effort: meta.agent.effort,
    // A reviewer's answer is its findings: codex is held to their shape (claude is asked for a block).
    outputSchema: session.reviewOf && !o.resume ? reviewSchemaFile(d.home) : null,
    settings:
      session.runtime === 'claude'
        ? agentSettingsArg(headlessHookSettings(currentInvocation()), {
            cwd: meta.cwd,
            worktreePath: session.worktreePath,
            projectRoot: meta.projectRoot,
            file: agentSettingsFile(d.home, session.projectId, session.id, 'headless'),
          })
        : null,
  });
  const shimDir = ensureShim(d.home, currentInvocation());
  const env: NodeJS.ProcessEnv = {
    ...d.env,
    KLAUDE_HOME: d.home,
    KLAUDE_PROJECT_HASH: session.projectId,
    // The project's root (a worktree agent works elsewhere: this is the tree it came from).
    KLAUDE_PROJECT_PATH: meta.projectRoot,
    KLAUDE_SESSION_ID: session.id,
    PATH: prependPath(shimDir, d.env.PATH),
  };
  return { cmd, env };
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

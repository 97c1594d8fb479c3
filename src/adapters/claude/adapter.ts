/**
 * The Claude Code adapter: `claude -p` with stream-json in and out (docs/cli-facts.md §2).
 * The session id is chosen by klaude (`--session-id <uuid>`) so the link exists before the first
 * event; follow-ups resume it in place (`--resume <uuid>`: same id, same transcript file).
 */
import { randomUuid } from '../../lib/random.js';
import { resolveClaudeBinary } from '../../config/claude-binary.js';
import { claudeTranscriptPath } from '../../claude/transcript.js';
import type { EncodedImage, LaunchCommand, LaunchInput, RuntimeAdapter } from '../runtime-adapter.js';
import { createClaudeNormaliser } from './normaliser.js';
import { claudeSandboxEngine } from '../../sandbox/engine.js';
import { claudeSandboxLaunch } from './sandbox-settings.js';

/**
 * Variables Claude Code sets for the commands its Bash tool runs. An agent started from inside a
 * Claude session must not inherit them: it is a session of its own, not a child of that one.
 */
const INHERITED_CLAUDE_VARS = [
  'CLAUDECODE',
  'CLAUDE_CODE_SESSION_ID',
  'CLAUDE_CODE_CHILD_SESSION',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_EXECPATH',
  'AI_AGENT',
  'TRACEPARENT',
  'CLAUDE_EFFORT',
];

export function buildClaudeCommand(input: LaunchInput): LaunchCommand {
  // --include-partial-messages: token deltas (stream_event), so a follower sees text as it is written.
  const args = [
    '-p',
    '--input-format',
    'stream-json',
    '--output-format',
    'stream-json',
    '--verbose',
    '--include-partial-messages',
  ];
  // A fork gets its own id up front too (2.1.197 takes --session-id with --fork-session).
  if (input.forkFrom && input.nativeSessionId && !input.resume)
    args.push('--resume', input.forkFrom, '--fork-session', '--session-id', input.nativeSessionId);
  else if (input.nativeSessionId) args.push(input.resume ? '--resume' : '--session-id', input.nativeSessionId);
  if (input.permissionMode) args.push('--permission-mode', input.permissionMode);
  // Permission requests come to klaude as control_requests on stdout (cli-facts §2.4), answered on stdin.
  if (input.approvals) args.push('--permission-prompt-tool', 'stdio');
  if (input.model) args.push('--model', input.model);
  if (input.effort) args.push('--effort', input.effort);
  if (input.appendSystemPrompt) args.push('--append-system-prompt', input.appendSystemPrompt);
  // Variadic flags (--mcp-config, --tools, --disallowedTools, --allowedTools) take `=value` or go
  // last: in the `--flag value` form they would swallow the arguments after them.
  // Always strict: left to itself, `claude -p` starts every project `.mcp.json` server nobody
  // approved; klaude passes the servers it resolved under Claude Code's approval rule (agent-types/mcp.ts).
  if (input.mcpConfig) args.push(`--mcp-config=${input.mcpConfig}`);
  args.push('--strict-mcp-config');
  if (input.settings) args.push('--settings', input.settings);
  if (input.tools) args.push(`--tools=${input.tools.join(',')}`);
  if (input.disallowedTools && input.disallowedTools.length > 0)
    args.push(`--disallowedTools=${input.disallowedTools.join(',')}`);
  if (input.allowedTools && input.allowedTools.length > 0) args.push('--allowedTools', ...input.allowedTools);
  const env: Record<string, string | undefined> = {};
  for (const k of INHERITED_CLAUDE_VARS) env[k] = undefined;
  return { file: input.binary, args, env, stdin: 'stream-json' };
}

export const claudeAdapter: RuntimeAdapter = {
  name: 'claude',
  supportsStreamingInput: true,
  choosesSessionIdUpFront: true,
  resolveBinary: (config, env) => resolveClaudeBinary(config, env),
  newSessionId: () => randomUuid(),
  buildCommand: buildClaudeCommand,
  createNormaliser: (hooks) => createClaudeNormaliser(hooks),
  takesImages: true,
  encodeMessage: (text, images = []) =>
    `${JSON.stringify({ type: 'user', message: { role: 'user', content: messageContent(text, images) }, parent_tool_use_id: null })}\n`,
  encodeInterrupt: (requestId) =>
    `${JSON.stringify({ type: 'control_request', request_id: requestId, request: { subtype: 'interrupt' } })}\n`,
  encodeApproval: (requestId, d) =>
    `${JSON.stringify({
      type: 'control_response',
      response: {
        subtype: 'success',
        request_id: requestId,
        response:
          d.behavior === 'allow'
            ? {
                behavior: 'allow',
                updatedInput: d.input,
                ...(d.permanent !== undefined ? { updatedPermissions: d.permanent } : {}),
              }
            : { behavior: 'deny', message: d.message },
      },
    })}\n`,
  transcriptPath: (cwd, id, env) => claudeTranscriptPath(cwd, id, env),
  interactiveResume: (binary, id) => ({ file: binary, args: ['--resume', id] }),
  sandbox: { check: (env) => claudeSandboxEngine(env), launch: claudeSandboxLaunch },
};

/**
 * A message's content: the text alone, or the images (Messages API image blocks, base64) then the
 * text, as claude's stream-json input takes a user message's content blocks.
 */
function messageContent(text: string, images: readonly EncodedImage[]): string | unknown[] {
  if (images.length === 0) return text;
  return [
    ...images.map((i) => ({ type: 'image', source: { type: 'base64', media_type: i.mediaType, data: i.data } })),
    ...(text.trim() ? [{ type: 'text', text }] : []),
  ];
}

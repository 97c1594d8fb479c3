/**
 * The seam between klaude and an agent CLI (claude, codex, gemini, cursor, opencode).
 * Callers (the runtime process, start/message/interrupt, checkout) only ever see this interface:
 * adding a CLI means one new adapter folder plus one line in the registry (registry.ts).
 *
 * An adapter is pure description: how to launch the CLI, how to talk to it on stdin, how to turn
 * each stdout line into klaude's event union. Processes, the DB and the log belong to the runtime.
 */
import type { AgentEventInput } from '../core/events.js';
import type { Config, RuntimeName } from '../config/schema.js';
import type { SandboxBoundary } from '../sandbox/boundary.js';
import type { EngineCheck } from '../sandbox/engine.js';
import type { ImageType } from '../core/image.js';

/** An image as a CLI gets it: its type and its bytes in base64. */
export interface EncodedImage {
  mediaType: ImageType;
  data: string;
}

export interface LaunchInput {
  /** The CLI executable (from `resolveBinary`). */
  binary: string;
  cwd: string;
  /**
   * The native session to create or continue. For CLIs that accept an id up front (claude
   * `--session-id`), the caller picks it before the launch; null lets the CLI choose.
   */
  nativeSessionId: string | null;
  /** Continue `nativeSessionId` (claude `--resume`) instead of creating it. */
  resume: boolean;
  /** Create `nativeSessionId` as a fork of this conversation (claude `--resume <it> --fork-session`). */
  forkFrom?: string | null;
  /** The first message, for CLIs without streaming input (it goes on the command line). */
  prompt?: string;
  model?: string | null;
  permissionMode?: string | null;
  /** Ask klaude about tool calls the permission mode does not allow (claude `--permission-prompt-tool stdio`). */
  approvals?: boolean;
  /** Pre-approved tool rules (`Bash(npm test:*)`, `mcp__server__tool`): a headless agent cannot ask. */
  allowedTools?: readonly string[];
  /** The built-in tools the agent has (agent definition `tools:`); null/absent = the CLI's default set. */
  tools?: readonly string[] | null;
  disallowedTools?: readonly string[];
  /** Agent instructions appended to the CLI's own system prompt. */
  appendSystemPrompt?: string | null;
  /** MCP servers: inline JSON (`{"mcpServers":{…}}`) or a file path. */
  mcpConfig?: string | null;
  /** Only the servers of `mcpConfig`. The claude adapter is strict whatever this says (it never loads MCP servers on its own). */
  mcpStrict?: boolean;
  /** Extra CLI settings (inline JSON or a path), e.g. injected hooks. */
  settings?: string | null;
  /** Reasoning effort hint for CLIs that take one. */
  effort?: string | null;
  /** A JSON Schema file the final answer must follow (codex `--output-schema`; a reviewer's first run). */
  outputSchema?: string | null;
}

/** A CLI's own sandbox, as klaude drives it (docs/sandbox.md). */
export interface SandboxSupport {
  /** Whether its engine can run here; `missing` says what is not installed, `fix` how to get it. */
  check(env: NodeJS.ProcessEnv): EngineCheck;
  /**
   * What confining a launch to `b` changes: settings merged over the CLI's own (claude's
   * `--settings`; codex reads its `-c` overrides from them), and the permission mode it then runs with.
   */
  launch(b: SandboxBoundary, permissionMode: string | null): SandboxLaunch;
}

export interface SandboxLaunch {
  settings: Record<string, unknown>;
  permissionMode: string | null;
}

export interface LaunchCommand {
  file: string;
  args: string[];
  /** Variables to add to the runtime's environment (undefined = remove). */
  env: Record<string, string | undefined>;
  /**
   * 'stream-json': messages and control requests are written to stdin; 'closed': stdin is /dev/null;
   * 'text': `stdinText` is written, then stdin is closed (opencode reads its prompt this way).
   */
  stdin: 'stream-json' | 'closed' | 'text';
  stdinText?: string;
}

/** A no-op run inside the CLI's own sandbox (RuntimeAdapter.sandboxCheck). */
export interface SandboxCheck {
  cmd: LaunchCommand;
  /** The command as a person would type it, for messages (`codex sandbox -- true`). */
  describe: string;
  /**
   * The failed check's stderr → the run's error in the CLI's own words, and what to do about it;
   * null when the failure is not the sandbox's (a broken config: the launch itself then says so).
   */
  explain(stderr: string): { message: string; hint: string } | null;
}

/** Stateful translator of one CLI run's stdout lines into AgentEvents. Never throws. */
export interface Normaliser {
  /** One stdout line (without the newline) → zero or more events. Unknown or broken lines give []. */
  line(line: string): AgentEventInput[];
  /** The runtime asked for an interrupt: the turn that ends next ends `interrupted`. */
  noteInterrupt(): void;
  /**
   * The CLI exited. Returns a closing `done` when the run ended without the CLI reporting one
   * (crash, signal, opencode's missing final event), else [].
   */
  end(exit: { code: number | null; signal: NodeJS.Signals | null; stderr: string }): AgentEventInput[];
}

export interface NormaliserHooks {
  /** A control response for a request the runtime sent (e.g. the interrupt acknowledgement). */
  onControlResponse?(requestId: string, ok: boolean): void;
  /** The CLI withdrew a request it had sent (a permission request whose turn was interrupted). */
  onControlCancel?(requestId: string): void;
  /**
   * The running turn's cost so far grew (dollars, estimated from each response's usage; the turn's
   * own `usage` event replaces it). CLIs that report cost only when a turn ends never call it.
   */
  onTurnSpend?(usd: number): void;
}

/** The answer to a permission request (`approval_request` event). */
export type ApprovalDecision =
  | {
      behavior: 'allow';
      input: unknown;
      /** the CLI's suggestions, to add as rules ("allow always") */ permanent?: unknown;
    }
  | { behavior: 'deny'; message: string };

export interface RuntimeAdapter {
  readonly name: RuntimeName;
  /** The CLI takes follow-up messages on stdin while it runs (else `message` resumes with a new process). */
  readonly supportsStreamingInput: boolean;
  /** klaude picks the native session id before launch (so links exist before the first event). */
  readonly choosesSessionIdUpFront: boolean;
  /** The executable, or E_RUNTIME_MISSING / E_CLAUDE_NOT_FOUND with an install hint. */
  resolveBinary(config: Config, env: NodeJS.ProcessEnv): string;
  /** A fresh native session id (only when `choosesSessionIdUpFront`). */
  newSessionId(): string;
  buildCommand(input: LaunchInput): LaunchCommand;
  /**
   * Directories to add to the CLI's PATH, made ready now (codex: the link its sandbox helper is run
   * by, adapters/codex/sandbox.ts). Called before each launch.
   */
  pathHelpers?(binary: string, home: string): string[];
  /**
   * A no-op inside the CLI's own sandbox with `input`'s settings, run before a runtime's first
   * launch; null when that launch has no sandbox. A failure fails the run at once with the CLI's own
   * error, which the CLI itself would tell only its model, tool call after tool call.
   */
  sandboxCheck?(input: LaunchInput): SandboxCheck | null;
  createNormaliser(hooks?: NormaliserHooks): Normaliser;
  /**
   * One stdin line (with newline) carrying a user message (streaming-input CLIs), with images
   * before the text for CLIs that take them (`takesImages`; the others are never given any).
   */
  encodeMessage(text: string, images?: readonly EncodedImage[]): string;
  /** The CLI takes images with a message (claude: image blocks in its stream-json input). */
  readonly takesImages?: boolean;
  /** One stdin line asking the CLI to stop the current turn, or null when it has none (signals only). */
  encodeInterrupt(requestId: string): string | null;
  /**
   * One stdin line answering a permission request. Absent: the CLI has no approval channel (it
   * never emits `approval_request`; its own non-interactive policy decides, see docs/approvals.md).
   */
  encodeApproval?(requestId: string, decision: ApprovalDecision): string;
  /** Where the CLI keeps the native session's transcript, if it is a file klaude can check. */
  transcriptPath?(cwd: string, nativeSessionId: string, env: NodeJS.ProcessEnv): string;
  /**
   * The CLI's sandbox klaude drives (the runtime applies it at every launch of a sandboxed agent).
   * Absent: its agents run `unsandboxed: <noSandbox>` (docs/sandbox.md, "Which CLIs").
   */
  readonly sandbox?: SandboxSupport;
  /**
   * Why a CLI without `sandbox` cannot be sandboxed, as `sessions -v` and `doctor` say it
   * ("opencode has no sandbox"); absent: `klaude drives no sandbox of <runtime> yet`.
   */
  readonly noSandbox?: string;
  /** The command that opens the native session interactively (checkout of this agent). */
  interactiveResume(binary: string, nativeSessionId: string): { file: string; args: string[] };
}

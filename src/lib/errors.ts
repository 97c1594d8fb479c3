/**
 * Typed errors. Every failure a person or Claude can act on carries a stable code,
 * a one-line message and, where we know one, a hint. The top-level catch in cli.ts
 * prints `klaude: <message>` + hint and exits with `exitCode`.
 */
export type ErrorCode =
  | 'E_USAGE'
  | 'E_UNKNOWN_COMMAND'
  | 'E_UNKNOWN_FLAG'
  | 'E_CONFIG'
  | 'E_SESSION_NOT_FOUND'
  | 'E_AMBIGUOUS_ID'
  | 'E_NO_PROJECT'
  | 'E_NO_SUPERVISOR'
  | 'E_HOOK_TIMEOUT'
  | 'E_SWITCH_IN_PROGRESS'
  | 'E_SWITCH_TARGET_MISSING'
  | 'E_SWITCH_FAILED'
  | 'E_AGENT_NOT_RUNNING'
  | 'E_OVER_BUDGET'
  | 'E_NO_PENDING_APPROVAL'
  | 'E_APPROVAL_BY_PERSON'
  | 'E_PERSON_ONLY'
  | 'E_SESSION_BUSY'
  | 'E_BAD_REQUEST'
  | 'E_PROTOCOL'
  | 'E_TIMEOUT'
  | 'E_CLAUDE_NOT_FOUND'
  | 'E_RUNTIME_MISSING'
  | 'E_AGENT_DEFINITION'
  | 'E_DB'
  | 'E_DB_TOO_NEW'
  | 'E_SQLITE_MODULE'
  | 'E_INSTALL'
  | 'E_INSECURE_RUNDIR'
  | 'E_LOCK'
  | 'E_IO'
  | 'E_GIT'
  | 'E_NOT_GIT_REPO'
  | 'E_DIRTY_TREE'
  | 'E_MERGE_CONFLICT'
  | 'E_NO_WORKTREE'
  | 'E_FORK_UNSUPPORTED'
  | 'E_SANDBOX_UNAVAILABLE'
  | 'E_UNSANDBOXED_BYPASS'
  | 'E_AGENT_CHANNEL'
  | 'E_ZONE_NOT_FOUND'
  | 'E_ZONE_OFFLINE'
  | 'E_ZONE_SETUP'
  | 'E_ZONE_MOVED'
  | 'E_NOTHING_TO_REVIEW'
  | 'E_NO_REVIEW'
  | 'E_REVIEW_NOT_READY'
  | 'E_UNKNOWN_SKILL'
  | 'E_AMBIGUOUS_SKILL'
  | 'E_SESSION_NOT_QUEUED'
  | 'E_IMAGE_UNSUPPORTED'
  | 'E_IMAGE'
  | 'E_INTERNAL';

/** Exit codes: 2 for bad usage (like most CLIs), 124 for timeouts (like timeout(1)), 1 otherwise. */
const EXIT_BY_CODE: Partial<Record<ErrorCode, number>> = {
  E_USAGE: 2,
  E_UNKNOWN_COMMAND: 2,
  E_UNKNOWN_FLAG: 2,
  E_TIMEOUT: 124,
};

export interface KlaudeErrorOptions {
  hint?: string;
  cause?: unknown;
  /** Extra structured data (candidates for E_AMBIGUOUS_ID, …); sent over the socket as-is. */
  details?: Record<string, unknown>;
  exitCode?: number;
}

export class KlaudeError extends Error {
  readonly code: ErrorCode;
  readonly hint?: string;
  readonly details?: Record<string, unknown>;
  readonly exitCode: number;

  constructor(code: ErrorCode, message: string, opts: KlaudeErrorOptions = {}) {
    super(message, opts.cause === undefined ? undefined : { cause: opts.cause });
    this.name = 'KlaudeError';
    this.code = code;
    this.hint = opts.hint;
    this.details = opts.details;
    this.exitCode = opts.exitCode ?? EXIT_BY_CODE[code] ?? 1;
  }

  /** Wire form for the control socket. */
  toJSON(): SerializedError {
    return { code: this.code, message: this.message, hint: this.hint, details: this.details };
  }
}

export interface SerializedError {
  code: ErrorCode | string;
  message: string;
  hint?: string;
  details?: Record<string, unknown>;
}

export function isKlaudeError(e: unknown): e is KlaudeError {
  return e instanceof KlaudeError;
}

/** Rebuild an error received over the socket so callers can branch on `code`. */
export function fromSerialized(e: SerializedError): KlaudeError {
  return new KlaudeError(e.code as ErrorCode, e.message, { hint: e.hint, details: e.details });
}

export const usageError = (message: string, hint?: string): KlaudeError =>
  new KlaudeError('E_USAGE', message, { hint });

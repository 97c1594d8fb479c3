/**
 * What goes over the zone channel besides requests (channel.ts): the events the serve end sends
 * and the shapes of a mirrored row and of a permission request. Shared by both ends; plain data.
 */
import type { ApprovalRow } from '../db/repos/approvals.js';
import type { SessionRow } from '../db/repos/sessions.js';

/** Bumped when a request or event changes shape; both ends say theirs in `hello`. */
export const ZONE_PROTOCOL = 1;

/** The columns of an agent's row over there that its mirror here shows. */
export type MirrorRow = Pick<
  SessionRow,
  | 'status'
  | 'activity'
  | 'error'
  | 'endedAt'
  | 'runStartedAt'
  | 'costUsd'
  | 'tokensIn'
  | 'tokensOut'
  | 'lastText'
  | 'nativeSessionId'
  | 'model'
  | 'runtime'
  | 'worktreeBranch'
  | 'worktreeBase'
  | 'queuedAt'
  | 'title'
>;

export function mirrorRowOf(s: SessionRow): MirrorRow {
  return {
    status: s.status,
    activity: s.activity,
    error: s.error,
    endedAt: s.endedAt,
    runStartedAt: s.runStartedAt,
    costUsd: s.costUsd,
    tokensIn: s.tokensIn,
    tokensOut: s.tokensOut,
    lastText: s.lastText,
    nativeSessionId: s.nativeSessionId,
    model: s.model,
    runtime: s.runtime,
    worktreeBranch: s.worktreeBranch,
    worktreeBase: s.worktreeBase,
    queuedAt: s.queuedAt,
    title: s.title,
  };
}

/** A permission request of an agent over there, as its mirror here records it. */
export interface MirrorApproval {
  requestId: string;
  tool: string;
  summary: string;
  input: unknown;
  suggestions: unknown;
  rule: string | null;
  reason: string | null;
  answer: ApprovalRow['answer'];
  message: string | null;
  by: string | null;
}

export function mirrorApprovalOf(a: ApprovalRow): MirrorApproval {
  return {
    requestId: a.requestId,
    tool: a.toolName,
    summary: a.summary,
    input: a.input,
    suggestions: a.suggestions,
    rule: a.suggestedRule,
    reason: a.reason,
    answer: a.answer,
    message: a.answerMessage,
    by: a.answeredBy,
  };
}

/** The serve end's events. */
export type ServeEvent =
  /** Log bytes of `sid` at byte offset `at` (whole lines; base64 when `b64`). */
  | { ev: 'log'; sid: string; at: number; data: string; b64?: boolean }
  /** The agent's row changed. */
  | { ev: 'row'; sid: string; row: MirrorRow }
  /** Its permission requests (the latest, answered ones too) changed. */
  | { ev: 'approvals'; sid: string; approvals: MirrorApproval[] }
  /** Following its log failed (one line). */
  | { ev: 'tail-failed'; sid: string; why: string };

/** `hello`'s answer. */
export interface ServeHello {
  protocol: number;
  version: string;
  host: string;
  pid: number;
  /** The project over there (the zone's clone). */
  root: string;
}

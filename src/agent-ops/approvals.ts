/**
 * Answering a headless agent's permission request from outside its runtime: `klaude approve` /
 * `klaude deny` and the dashboard. The request is held by the agent's runtime (approval-desk.ts);
 * the answer goes to it over its control socket (`answer`), which records it and replies to the CLI.
 *
 * Who may answer (config `agents.approvals`): `person` — only the person (the dashboard, a terminal
 * of their own); `parent` — agents may answer too (the orchestrating parent answers for its
 * children). The runtime decides, from the process at the other end of its socket
 * (ownership/answerer.ts); the CLAUDECODE check here only fails the plain case early.
 */
import { shortId } from '../core/ids.js';
import type { AnswerPayload, AnswerResult } from '../control/protocol.js';
import { cancelPendingApprovals, pendingApprovals, type ApprovalRow } from '../db/repos/approvals.js';
import { getSession } from '../db/repos/sessions.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import type { AgentServices } from './context.js';
import { liveRuntime, reapIfDead } from '../ownership/liveness.js';
import { launchMetadata } from '../agent-types/launch-settings.js';
import { askRuntime, zoneAccess } from './message.js';
import { heldPersonKey } from '../ownership/person-key.js';
import { zoneOf } from '../core/zone.js';
import { askZone } from '../zone-client/ask-link.js';
import { localSettingsFile, ownSettingsDir } from '../claude/local-settings.js';

export type { ApprovalRow };

export interface AnswerRequest {
  /** Approval number or a prefix of the CLI's request id; absent = the oldest pending. */
  request?: string;
  behavior: 'allow' | 'deny';
  always?: boolean;
  message?: string;
  /** From the web server: the signed-in page that sent it (ownership/web-sessions.ts). */
  webSession?: string;
}

/** The caller is Claude itself (its Bash tool), not a person at a shell or the dashboard. */
export function callerIsClaude(env: NodeJS.ProcessEnv): boolean {
  return env.CLAUDECODE === '1';
}

/** The pending request an answer would go to (the oldest, or the one `request` names). */
export function pendingRequest(svc: AgentServices, sessionId: string, request?: string): ApprovalRow {
  const pending = pendingApprovals(svc.db, sessionId);
  const label = shortId(sessionId);
  if (pending.length === 0) {
    throw new KlaudeError('E_NO_PENDING_APPROVAL', `agent ${label} has no pending permission request`, {
      hint: '`klaude sessions` marks agents waiting for an answer with "needs approval"',
    });
  }
  if (request === undefined || request === '') return pending[0]!;
  const hit = pending.filter((p) => String(p.id) === request || p.requestId.startsWith(request));
  if (hit.length === 1) return hit[0]!;
  throw new KlaudeError('E_NO_PENDING_APPROVAL', `agent ${label} has no single pending request '${request}'`, {
    hint: `pending: ${pending.map((p) => `${p.id} (${p.toolName}: ${p.summary})`).join(', ')}`,
  });
}

/**
 * Where "allow always" puts the rule: the agent's `.claude/settings.local.json`, or for an agent
 * in a worktree the project's own (its runtime writes it there: claude/local-settings.ts).
 */
export function localSettingsPath(svc: AgentServices, sessionId: string): string {
  const s = getSession(svc.db, sessionId);
  const meta = s ? launchMetadata(s) : null;
  const cwd = meta?.cwd ?? svc.projectRoot;
  const projectRoot = meta?.projectRoot ?? svc.projectRoot;
  return localSettingsFile(ownSettingsDir({ cwd, worktreePath: s?.worktreePath ?? null, projectRoot }));
}

/**
 * Send the answer to the agent's runtime. `onBehalf`: a zone serve process carrying the person's
 * answer from their machine says who gave it (the runtime takes it only from such a process).
 */
export async function answerRequest(
  svc: AgentServices,
  sessionId: string,
  a: AnswerRequest,
  onBehalf?: string,
): Promise<AnswerResult> {
  const claude = callerIsClaude(svc.env);
  if (claude && svc.config['agents.approvals'] !== 'parent') {
    throw new KlaudeError(
      'E_APPROVAL_BY_PERSON',
      'permission requests of agents are answered by the person, not by Claude',
      {
        hint: 'the person answers in the klaude dashboard or with `klaude approve`/`deny` in a shell; config agents.approvals: parent lets the parent Claude answer',
      },
    );
  }
  const s = getSession(svc.db, sessionId);
  if (!s) throw new KlaudeError('E_SESSION_NOT_FOUND', `session ${sessionId} no longer exists`);
  const row = pendingRequest(svc, s.id, a.request);
  const key = heldPersonKey();
  const zone = zoneOf(s);
  if (zone) {
    // Judged by the zone's link here (the person is on this machine), carried to the zone by it.
    const ask = { op: 'answer' as const, sid: s.id, requestId: row.requestId, behavior: a.behavior };
    const extra = {
      ...(a.always ? { always: true } : {}),
      ...(a.message ? { message: a.message } : {}),
      ...(key ? { key } : {}),
      ...(a.webSession ? { webSession: a.webSession } : {}),
    };
    return askZone<AnswerResult>(zoneAccess(svc, zone.name), { ...ask, ...extra });
  }
  const payload: AnswerPayload = {
    sessionId: s.id,
    request: String(row.id),
    behavior: a.behavior,
    ...(a.always ? { always: true } : {}),
    ...(a.message ? { message: a.message } : {}),
    // The dashboard's or the web server's key, where this process holds one: what proves them to a
    // runtime that cannot ask the kernel who sent this (ownership/person-key.ts).
    ...(key ? { key } : {}),
    ...(a.webSession ? { webSession: a.webSession } : {}),
    ...(onBehalf ? { onBehalf } : {}),
  };
  if (liveRuntime(svc.db, s.id)) {
    try {
      return await askRuntime(svc, s, 'answer', payload);
    } catch (e) {
      if (!isKlaudeError(e) || !['E_NO_SUPERVISOR', 'E_IO', 'E_AGENT_NOT_RUNNING'].includes(e.code)) throw e;
    }
  }
  // Nobody holds the request any more: it can never be answered (and a runtime that died
  // without a word leaves its session ended as failed).
  cancelPendingApprovals(svc.db, s.id, 'the agent runtime is gone');
  reapIfDead(svc.db, s.id);
  throw new KlaudeError(
    'E_AGENT_NOT_RUNNING',
    `agent ${shortId(s.id)} is no longer running: its permission request lapsed`,
    {
      hint: `\`klaude message ${shortId(s.id)} "…"\` resumes it`,
    },
  );
}

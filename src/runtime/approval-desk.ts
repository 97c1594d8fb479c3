/**
 * The runtime's side of permission approvals. A headless claude runs with
 * `--permission-prompt-tool stdio`: a tool call its permission mode does not allow arrives as a
 * control_request `can_use_tool` (normalised to an `approval_request` event) and claude waits for
 * the control_response. This desk holds each request until it is answered:
 *
 *   request ─▶ row in `approvals` (pending), session `waiting`, `approval_request` in the log,
 *              `[NEEDS APPROVAL]` note for the parent (agent_updates, kind 'approval'),
 *              timer when agents.approvalTimeoutSeconds > 0
 *   answer  ─▶ (socket `answer`: `klaude approve`/`deny`, the dashboard) row answered (first answer
 *              wins), control_response on the CLI's stdin, `approval_answer` in the log, session
 *              `running` again once nothing is pending
 *   timeout ─▶ deny with a message saying so; turn end, stop, CLI exit ─▶ pending rows cancelled.
 */
import { notify } from '../agent-ops/notify.js';
import type { EventOf } from '../core/events.js';
import type { Answerer } from '../ownership/answerer.js';
import { shortId } from '../core/ids.js';
import { applyTransition } from '../core/status.js';
import type { AnswerPayload, AnswerResult } from '../control/protocol.js';
import {
  addApproval,
  answerApproval,
  cancelPendingApprovals,
  pendingApprovals,
  type ApprovalRow,
} from '../db/repos/approvals.js';
import { getSession, updateSession } from '../db/repos/sessions.js';
import { addUpdate } from '../db/repos/updates.js';
import { KlaudeError } from '../lib/errors.js';
import type { ApprovalDecision, RuntimeAdapter } from '../adapters/runtime-adapter.js';
import type { Deps } from './deps.js';
import { routeAlwaysRules } from '../claude/local-settings.js';
import type { RunRecord } from './run-record.js';

/**
 * `default` means "ask". A CLI without an approval channel cannot ask anyone (nothing could hold
 * its request), so there `default` becomes `acceptEdits`: it edits without asking, and what its own
 * policy refuses is refused (docs/approvals.md). Other modes pass through.
 */
export function permissionModeFor(adapter: RuntimeAdapter, mode: string): string {
  return mode === 'default' && !adapter.encodeApproval ? 'acceptEdits' : mode;
}

type Request = Omit<EventOf<'approval_request'>, 'ts'>;

export class ApprovalDesk {
  private readonly timers = new Map<number, NodeJS.Timeout>();

  constructor(
    private readonly d: Deps,
    private readonly rec: RunRecord,
    /** Writes one line to the CLI's stdin; false when it cannot (the CLI is gone). */
    private readonly send: (line: string) => boolean,
  ) {}

  private get id(): string {
    return this.d.session.id;
  }

  private setStatus(to: 'waiting' | 'running', reason?: string): void {
    const cur = getSession(this.d.db, this.id);
    if (!cur || cur.status === to || !applyTransition(cur.status, to).allowed) return;
    updateSession(this.d.db, this.id, { status: to });
    this.rec.write({ type: 'status', status: to, ...(reason ? { reason } : {}) });
  }

  /** A permission request from the CLI: recorded, shown, and held. */
  onRequest(e: Request): void {
    const { d } = this;
    let row: ApprovalRow;
    try {
      row = this.record(e);
    } catch (err) {
      // Unrecorded, nobody could answer it: the agent would wait forever. Deny and say why.
      d.log.error('recording a permission request failed: denied', { err, tool: e.tool });
      const message = 'klaude could not record this permission request, so it was denied.';
      this.send(d.adapter.encodeApproval?.(e.requestId, { behavior: 'deny', message }) ?? '');
      this.rec.write({ type: 'approval_answer', requestId: e.requestId, behavior: 'deny', message, by: 'runtime' });
      return;
    }
    const { suggestions: _omit, ...shown } = e;
    this.rec.write({ ...shown, approvalId: row.id });
    this.setStatus('waiting'); // the approval_request line says why
    notify(d, {
      kind: 'needs_you',
      sessionId: this.id,
      eventKey: `needs_you:approval:${row.id}`,
      detail: `${e.tool}: ${e.summary}`,
      tool: e.tool,
      summary: e.summary,
    });
    const secs = d.config['agents.approvalTimeoutSeconds'];
    if (secs > 0) {
      const t = setTimeout(() => this.expire(row.id), secs * 1000);
      t.unref();
      this.timers.set(row.id, t);
    }
    d.log.info('permission request held', { approvalId: row.id, tool: e.tool, summary: e.summary });
  }

  /** The row, and the parent's `[NEEDS APPROVAL]` note. */
  private record(e: Request): ApprovalRow {
    const { d } = this;
    const row = addApproval(d.db, {
      sessionId: this.id,
      requestId: e.requestId,
      toolName: e.tool,
      summary: e.summary,
      input: e.input,
      suggestions: e.suggestions,
      suggestedRule: e.rule ?? null,
      reason: e.reason ?? null,
    });
    addUpdate(d.db, {
      sessionId: this.id,
      parentSessionId: d.session.parentId,
      text: `${e.tool}: ${e.summary}`,
      kind: d.config['agents.approvals'] === 'parent' ? 'approval_parent' : 'approval',
    });
    return row;
  }

  private pick(request: string | undefined): ApprovalRow {
    const pending = pendingApprovals(this.d.db, this.id);
    if (pending.length === 0) {
      throw new KlaudeError('E_NO_PENDING_APPROVAL', `agent ${shortId(this.id)} has no pending permission request`);
    }
    if (request === undefined || request === '') return pending[0]!;
    const hit = pending.filter((p) => String(p.id) === request || p.requestId.startsWith(request));
    if (hit.length !== 1) {
      throw new KlaudeError(
        'E_NO_PENDING_APPROVAL',
        `no single pending request '${request}' for agent ${shortId(this.id)}`,
        {
          hint: `pending: ${pending.map((p) => `${p.id} (${p.toolName}: ${p.summary})`).join(', ')}`,
        },
      );
    }
    return hit[0]!;
  }

  /**
   * Socket `answer`: answer one pending request (the oldest unless `request` names one), if `who`
   * may: the person always, an agent only with `agents.approvals: parent`.
   */
  answer(p: AnswerPayload, who: Answerer): AnswerResult {
    if (!who.person && this.d.config['agents.approvals'] !== 'parent') {
      this.d.log.warn('refused an answer that did not come from the person', { by: who.by, why: who.why });
      throw new KlaudeError('E_APPROVAL_BY_PERSON', `permission requests are answered by the person: ${who.why}`, {
        hint:
          who.hint ??
          'answer in the klaude dashboard, or with `klaude approve`/`deny` in a terminal of your own; config agents.approvals: parent lets agents answer',
      });
    }
    const row = this.pick(p.request);
    const by = who.by;
    if (p.behavior === 'allow') {
      const always = p.always === true && row.suggestions !== null;
      this.decide(
        row,
        { answer: always ? 'allow_always' : 'allow', by },
        {
          behavior: 'allow',
          input: row.input ?? {},
          ...(always ? { permanent: this.alwaysRules(row.suggestions) } : {}),
        },
      );
    } else {
      const message =
        p.message?.trim() || `The ${who.person ? 'user' : 'parent agent'} denied this ${row.toolName} call.`;
      this.decide(row, { answer: 'deny', message, by }, { behavior: 'deny', message });
    }
    return {
      approvalId: row.id,
      requestId: row.requestId,
      tool: row.toolName,
      summary: row.summary,
      ...(row.suggestedRule ? { rule: row.suggestedRule } : {}),
      pending: pendingApprovals(this.d.db, this.id).length,
    };
  }

  /** Where an "always" rule goes: a worktree agent's into the project's own file (claude/local-settings.ts). */
  private alwaysRules(suggestions: unknown): unknown {
    const { meta, session, log } = this.d;
    return routeAlwaysRules(suggestions, {
      cwd: meta.cwd,
      worktreePath: session.worktreePath,
      projectRoot: meta.projectRoot,
      warn: (msg, err) => log.warn(msg, { err }),
    });
  }

  private decide(row: ApprovalRow, a: Parameters<typeof answerApproval>[2], decision: ApprovalDecision): void {
    const encode = this.d.adapter.encodeApproval;
    if (!encode) throw new KlaudeError('E_INTERNAL', `${this.d.adapter.name} has no approval channel`);
    if (!answerApproval(this.d.db, row.id, a)) {
      throw new KlaudeError(
        'E_NO_PENDING_APPROVAL',
        `request ${row.id} of agent ${shortId(this.id)} was answered already`,
      );
    }
    this.clearTimer(row.id);
    if (!this.send(encode(row.requestId, decision))) {
      this.d.log.warn('could not send the approval answer: the CLI is gone', { approvalId: row.id });
    }
    this.rec.write({
      type: 'approval_answer',
      requestId: row.requestId,
      approvalId: row.id,
      behavior: decision.behavior,
      ...(a.answer === 'allow_always' ? { always: true } : {}),
      ...(decision.behavior === 'deny' ? { message: decision.message } : {}),
      by: a.by,
    });
    if (pendingApprovals(this.d.db, this.id).length === 0) this.setStatus('running');
  }

  private expire(id: number): void {
    this.timers.delete(id);
    const row = pendingApprovals(this.d.db, this.id).find((r) => r.id === id);
    if (!row) return;
    const secs = this.d.config['agents.approvalTimeoutSeconds'];
    const message = `Nobody answered this permission request within ${secs} s, so it was denied.`;
    try {
      this.decide(row, { answer: 'timeout', message, by: 'timeout' }, { behavior: 'deny', message });
    } catch (err) {
      this.d.log.warn('timing out a permission request failed', { err, approvalId: id });
    }
  }

  /** The CLI withdrew a request (e.g. its turn was interrupted). */
  onCancel(requestId: string): void {
    const row = pendingApprovals(this.d.db, this.id).find((r) => r.requestId === requestId);
    if (
      !row ||
      !answerApproval(this.d.db, row.id, { answer: 'cancelled', message: 'withdrawn by the agent', by: 'runtime' })
    )
      return;
    this.clearTimer(row.id);
    this.rec.write({ type: 'approval_answer', requestId, approvalId: row.id, behavior: 'cancelled', by: 'runtime' });
    if (pendingApprovals(this.d.db, this.id).length === 0) this.setStatus('running');
  }

  /** The turn or the run ended: nothing pending can be answered any more. */
  closeAll(why: string): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
    try {
      const pending = pendingApprovals(this.d.db, this.id);
      if (pending.length === 0) return;
      cancelPendingApprovals(this.d.db, this.id, why);
      for (const r of pending)
        this.rec.write({
          type: 'approval_answer',
          requestId: r.requestId,
          approvalId: r.id,
          behavior: 'cancelled',
          message: why,
          by: 'runtime',
        });
    } catch (err) {
      this.d.log.warn('closing pending permission requests failed', { err });
    }
  }

  private clearTimer(id: number): void {
    const t = this.timers.get(id);
    if (t) clearTimeout(t);
    this.timers.delete(id);
  }
}

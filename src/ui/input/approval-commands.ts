/**
 * The dashboard's answers to permission requests (keys A, W, D on an agent that is `waiting` on
 * one): allow once at once; allow always after saying where the rule is written; deny with an
 * optional reason typed in a dialog. The answer goes through `actions.answer` (the agent's runtime).
 */
import { shortId } from '../../core/ids.js';
import type { ApprovalRow } from '../../db/repos/approvals.js';
import type { ConfirmIntent, Modal } from '../state/ui-state.js';
import type { CommandId } from '../keymap.js';
import type { CommandEnv } from './command-env.js';
import { errorNotice } from '../state/notice.js';

const what = (a: ApprovalRow): string => `${a.toolName}${a.summary ? `: ${a.summary}` : ''}`;

function send(
  env: CommandEnv,
  sessionId: string,
  approvalId: number,
  a: { behavior: 'allow' | 'deny'; always?: boolean; message?: string },
  done: string,
): void {
  const { dispatch } = env;
  dispatch({ type: 'busy', text: `answering ${shortId(sessionId)}…` });
  env.actions.answer(sessionId, { request: String(approvalId), ...a }).then(
    () => {
      dispatch({ type: 'busy', text: null });
      dispatch({ type: 'notice', notice: { text: done, tone: 'info' } });
    },
    (e: unknown) => {
      dispatch({ type: 'busy', text: null });
      // A request is answered while its session waits: once it doesn't, the error is old news.
      dispatch({ type: 'notice', notice: errorNotice(e, { id: sessionId, status: 'waiting' }) });
    },
  );
}

/** approval.allow / approval.always / approval.deny. */
export function runApprovalCommand(
  id: Extract<CommandId, 'approval.allow' | 'approval.always' | 'approval.deny'>,
  env: CommandEnv,
): void {
  const sel = env.tree.selected;
  const ask = env.tree.ctx.selectedApproval;
  if (!sel || !ask) return;
  switch (id) {
    case 'approval.allow':
      return send(env, sel.id, ask.id, { behavior: 'allow' }, `allowed ${shortId(sel.id)} ${what(ask)}`);
    case 'approval.always': {
      if (!ask.suggestedRule) {
        return env.dispatch({
          type: 'notice',
          notice: { text: `claude suggested no rule for ${what(ask)}: A allows it once`, tone: 'warn' },
        });
      }
      return env.dispatch({
        type: 'confirm',
        intent: { kind: 'allowAlways', sessionId: sel.id, approvalId: ask.id },
        message: `Allow always: the rule ${ask.suggestedRule} goes into ${env.actions.rulePath(sel.id)}, so the agents of this project run it without asking. Allow and write the rule?`,
        dangerous: false,
      });
    }
    case 'approval.deny':
      return env.dispatch({ type: 'openDeny', sessionId: sel.id, approvalId: ask.id, what: what(ask) });
  }
}

/** The person said yes to "allow always". */
export function confirmAllowAlways(env: CommandEnv, intent: Extract<ConfirmIntent, { kind: 'allowAlways' }>): void {
  send(
    env,
    intent.sessionId,
    intent.approvalId,
    { behavior: 'allow', always: true },
    `allowed always ${shortId(intent.sessionId)} (rule written)`,
  );
}

/** Enter in the deny dialog. */
export function submitDeny(env: CommandEnv, m: Extract<Modal, { kind: 'deny' }>): void {
  env.dispatch({ type: 'closeModal' });
  const reason = m.text.trim();
  send(
    env,
    m.sessionId,
    m.approvalId,
    { behavior: 'deny', ...(reason ? { message: reason } : {}) },
    `denied ${shortId(m.sessionId)} ${m.what}`,
  );
}

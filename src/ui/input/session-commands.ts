/**
 * The Sessions commands: open, talk, new, start, message, interrupt, archive, copy the id; the
 * answers to permission requests are in approval-commands.ts. Interrupting, archiving and
 * opening a running agent ask first (a confirm dialog; dialog-commands.ts acts on its yes).
 */
import { shortId } from '../../core/ids.js';
import { isActive } from '../../core/status.js';
import { isLive, isWorking, subtreeIds, type SessionView } from '../../feeds/session-tree.js';
import type { CommandIn } from '../keymap.js';
import { runApprovalCommand } from './approval-commands.js';
import type { CommandEnv } from './command-env.js';
import { errText, label } from './command-feedback.js';
import { errorNotice } from '../state/notice.js';

export function runSessionCommand(id: CommandIn<'Sessions'>, env: CommandEnv): void {
  const { dispatch, actions } = env;
  const sel = env.tree.selected;
  switch (id) {
    case 'approval.allow':
    case 'approval.always':
    case 'approval.deny':
      return runApprovalCommand(id, env);
    case 'session.copyId':
      if (!sel) return;
      actions.copy(sel.id);
      return dispatch({ type: 'notice', notice: { text: `copied ${sel.id} (${label(sel)})`, tone: 'info' } });
    case 'session.talk':
      if (sel) talk(env, sel);
      return;
    case 'session.open':
      if (sel) askOpen(env, sel);
      return;
    case 'session.new':
      return newSession(env);
    case 'agent.start':
      dispatch({ type: 'openStart', selectedId: sel?.id ?? null, under: startsUnder(sel) });
      actions.agentTypes().then(
        (r) => dispatch({ type: 'startChoices', choices: r.choices, problems: r.problems }),
        (e: unknown) => dispatch({ type: 'startChoices', choices: [], problems: [errText(e)] }),
      );
      return;
    case 'agent.message':
      if (sel) dispatch({ type: 'openMessage', sessionId: sel.id, pty: Boolean(env.processes.get(sel.id)?.pty) });
      return;
    case 'agent.interrupt':
      if (!sel) return;
      return dispatch({
        type: 'confirm',
        intent: { kind: 'interrupt', sessionIds: [sel.id] },
        message: `Interrupt ${label(sel)} (${sel.status})? Its current turn stops, and messages queued behind it are not sent; the session stays and can be messaged again.`,
        dangerous: true,
      });
    case 'session.archive':
      if (sel) askArchive(env, sel);
      return;
    case 'session.rename':
      if (sel) dispatch({ type: 'openMessage', sessionId: sel.id, rename: true, text: sel.name ?? '' });
      return;
    case 'session.pin':
      if (sel) pin(env, sel);
      return;
  }
}

/**
 * Whether `s` starts an agent under the selected row by default (`p` in the dialog toggles). Not
 * under an archived row, nor a worktree agent that is not working: its child would work in the
 * project's tree, not in that worktree, and nothing is waiting for its report.
 */
export function startsUnder(sel: SessionView | null): boolean {
  if (!sel || sel.archivedAt !== null) return false;
  return !(sel.worktreeBranch && !isWorking(sel));
}

function pin(env: CommandEnv, sel: SessionView): void {
  const pinned = !sel.pinnedAt;
  env.actions.mark(sel.id, { pinned }).then(
    () =>
      env.dispatch({
        type: 'notice',
        notice: { text: `${label(sel)} ${pinned ? 'pinned: it stays on top' : 'unpinned'}`, tone: 'info' },
      }),
    (e: unknown) => env.dispatch({ type: 'notice', notice: { text: errText(e), tone: 'error' } }),
  );
}

/** Hand the terminal to claude on this session (the dashboard comes back when claude exits). */
export function openSession(env: CommandEnv, id: string): void {
  const s = env.tree.byId.get(id);
  const what = s ? label(s) : shortId(id);
  env.dispatch({
    type: 'busy',
    text: s?.nativeSessionId
      ? `opening ${what}…`
      : `opening ${what}: waiting for its ${s?.runtime === 'claude' || !s ? 'Claude' : s.runtime} session…`,
  });
  env.actions.open(id).then(
    () => env.dispatch({ type: 'busy', text: null }),
    (e: unknown) => {
      env.dispatch({ type: 'busy', text: null });
      // Not tied to the row: opening may stop its run (a new status) before the launch fails.
      env.dispatch({ type: 'notice', notice: errorNotice(e) });
    },
  );
}

function askOpen(env: CommandEnv, sel: SessionView): void {
  if (sel.type !== 'tui' && isActive(sel.status)) {
    // Checkout stops the headless run first: say so before cutting a turn off.
    return env.dispatch({
      type: 'confirm',
      intent: { kind: 'open', sessionId: sel.id },
      message: `${label(sel)} is ${sel.status}. Opening it stops its headless run first (the current turn is cut off); you continue its conversation in ${sel.runtime === 'claude' ? 'claude' : `${sel.runtime}'s own CLI`}. Open it?`,
      dangerous: true,
    });
  }
  return openSession(env, sel.id);
}

function talk(env: CommandEnv, sel: SessionView): void {
  const { dispatch } = env;
  dispatch({ type: 'busy', text: `talking to ${label(sel)}…` });
  env.actions.talk(sel.id).then(
    (r) => {
      dispatch({ type: 'busy', text: null });
      dispatch({ type: 'notice', notice: { text: r.message, tone: r.ok ? 'info' : 'warn' } });
    },
    (e: unknown) => {
      dispatch({ type: 'busy', text: null });
      dispatch({ type: 'notice', notice: errorNotice(e) });
    },
  );
}

function newSession(env: CommandEnv): void {
  const { dispatch } = env;
  dispatch({ type: 'busy', text: 'starting claude…' });
  env.actions.newSession().then(
    () => dispatch({ type: 'busy', text: null }),
    (e: unknown) => {
      dispatch({ type: 'busy', text: null });
      dispatch({ type: 'notice', notice: errorNotice(e) });
    },
  );
}

/** Archive the session and its sub-agents (none may be live), or bring an archived one back. */
function askArchive(env: CommandEnv, sel: SessionView): void {
  const { tree } = env;
  const archive = sel.archivedAt === null;
  const ids = archive ? subtreeIds(env.sessions, sel.id) : [sel.id];
  if (
    archive &&
    ids.some((x) => {
      const s = tree.byId.get(x);
      return s ? isLive(s) : false;
    })
  )
    return;
  const subs = ids.length - 1;
  return env.dispatch({
    type: 'confirm',
    intent: { kind: 'archive', sessionIds: ids, archive },
    message: archive
      ? `Archive ${label(sel)}${subs ? ` and its ${subs} sub-agent${subs === 1 ? '' : 's'}` : ''}? It leaves the tree; its log and conversation stay (a shows archived sessions, d brings it back).${
          ids.some((x) => tree.byId.get(x)?.worktreeBranch)
            ? ' Git worktrees of merged or empty agents are removed; unmerged work is kept.'
            : ''
        }`
      : `Bring ${label(sel)} back into the tree?`,
    dangerous: false,
  });
}

/**
 * What each keymap command does. UI-only commands dispatch reducer actions; the rest call the
 * dashboard actions and report the outcome in the footer.
 */
import { shortId } from '../../core/ids.js';
import type { ApprovalRow } from '../../db/repos/approvals.js';
import type { LiveProcesses } from '../../db/repos/listing.js';
import type { DashboardActions } from '../deps.js';
import type { CommandId } from '../keymap.js';
import { isActive } from '../../core/status.js';
import { isLive, subtreeIds, type SessionView } from '../../feeds/session-tree.js';
import type { ConfirmIntent, UiAction, UiState } from '../state/ui-state.js';
import type { LogWindow, TreeView } from '../view.js';
import { confirmAllowAlways, runApprovalCommand, submitDeny } from './approval-commands.js';
import { findLogMatch } from './log-search.js';

export interface CommandEnv {
  ui: UiState;
  dispatch: (a: UiAction) => void;
  tree: TreeView;
  log: LogWindow;
  /** Rows in the help overlay window and its line count. */
  help: { height: number; lines: number };
  /** Every session (for archive subtrees). */
  sessions: readonly SessionView[];
  /** Live processes by session id (PTY hosts: talk, the screen preview, quitting). */
  processes: ReadonlyMap<string, LiveProcesses>;
  /** Pending permission requests by session id. */
  approvals?: ReadonlyMap<string, readonly ApprovalRow[]>;
  actions: DashboardActions;
}

const label = (s: SessionView): string => `${s.type === 'tui' ? 'claude' : s.type} ${shortId(s.id)}`;
const errText = (e: unknown): string => {
  const err = e as { message?: string; code?: string; hint?: string };
  return `${err.message ?? String(e)}${err.code ? ` [${err.code}]` : ''}${err.hint ? ` — ${err.hint}` : ''}`;
};

/** What happened to a message, in words (not the runtime's `stdin` / `queued` / `resumed`). */
function deliveredText(who: string, delivered: string): string {
  if (delivered === 'stdin') return `sent to ${who}: it reads it when its current turn ends`;
  if (delivered === 'queued') return `queued for ${who}: it runs when the current turn ends`;
  return `${who} had stopped: resumed with your message`;
}

/** Run an action in the background: busy text while it runs, then a notice. */
function track<T>(env: CommandEnv, busy: string, p: Promise<T>, done: (r: T) => string): void {
  env.dispatch({ type: 'busy', text: busy });
  p.then(
    (r) => {
      env.dispatch({ type: 'busy', text: null });
      env.dispatch({ type: 'notice', notice: { text: done(r), tone: 'info' } });
    },
    (e: unknown) => {
      env.dispatch({ type: 'busy', text: null });
      env.dispatch({ type: 'notice', notice: { text: errText(e), tone: 'error' } });
    },
  );
}

/** Hand the terminal to claude on this session (the dashboard comes back when claude exits). */
function openSession(env: CommandEnv, id: string): void {
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
      env.dispatch({ type: 'notice', notice: { text: errText(e), tone: 'error' } });
    },
  );
}

function confirmed(env: CommandEnv, intent: ConfirmIntent): void {
  const { actions, tree } = env;
  env.dispatch({ type: 'closeModal' });
  switch (intent.kind) {
    case 'open':
      openSession(env, intent.sessionId);
      return;
    case 'quit':
      actions.quit();
      return;
    case 'allowAlways':
      confirmAllowAlways(env, intent);
      return;
    case 'interrupt':
      track(env, 'interrupting…', actions.interrupt(intent.sessionIds), (r) => {
        const bad = r.results.filter((x) => !x.ok);
        return bad.length
          ? `could not interrupt ${bad.map((b) => `${shortId(b.sessionId)}${b.code ? ` (${b.code})` : ''}`).join(', ')}`
          : `interrupted ${intent.sessionIds.map(shortId).join(', ')}`;
      });
      return;
    case 'archive': {
      const first = tree.byId.get(intent.sessionIds[0]!);
      const what = first ? label(first) : shortId(intent.sessionIds[0]!);
      const more =
        intent.sessionIds.length > 1
          ? ` and ${intent.sessionIds.length - 1} sub-agent${intent.sessionIds.length > 2 ? 's' : ''}`
          : '';
      track(
        env,
        intent.archive ? 'archiving…' : 'restoring…',
        actions.archive(intent.sessionIds, intent.archive),
        (r) =>
          intent.archive
            ? `archived ${what}${more} (a shows archived sessions)${r?.note ? `; ${r.note}` : ''}`
            : `${what}${more} back in the tree`,
      );
      return;
    }
  }
}

function submit(env: CommandEnv): void {
  const { ui, actions, dispatch } = env;
  const m = ui.modal;
  if (m?.kind === 'message') {
    const text = m.text.trim();
    if (!text)
      return dispatch({ type: 'notice', notice: { text: 'type a message first (Esc cancels)', tone: 'warn' } });
    dispatch({ type: 'closeModal' });
    track(env, `sending to ${shortId(m.sessionId)}…`, actions.message(m.sessionId, text), (r) =>
      deliveredText(shortId(m.sessionId), r.delivered),
    );
    return;
  }
  if (m?.kind === 'deny') return submitDeny(env, m);
  if (m?.kind === 'start') {
    const text = m.text.trim();
    const type = m.choices?.[m.index]?.name;
    if (!type) return dispatch({ type: 'startStep', step: 'type' });
    if (!text)
      return dispatch({
        type: 'notice',
        notice: { text: 'type the prompt for the agent first (Esc cancels)', tone: 'warn' },
      });
    dispatch({ type: 'closeModal' });
    env.dispatch({ type: 'busy', text: `starting ${type}…` });
    actions.start({ type, prompt: text, parentId: m.parentId }).then(
      (r) => {
        dispatch({ type: 'busy', text: null });
        dispatch({
          type: 'notice',
          notice: { text: `started ${type} ${r.sessionIds.map(shortId).join(', ')}`, tone: 'info' },
        });
        if (r.sessionIds[0]) dispatch({ type: 'select', id: r.sessionIds[0] });
      },
      (e: unknown) => {
        dispatch({ type: 'busy', text: null });
        dispatch({ type: 'notice', notice: { text: errText(e), tone: 'error' } });
      },
    );
    return;
  }
  if (ui.filterEditing) dispatch({ type: 'filterEnd', keep: true });
  if (ui.searchEditing) {
    dispatch({ type: 'searchEnd', keep: true });
    searchLog(env, ui.search, env.log.top, 1);
  }
}

/** Show the next (dir 1) or previous (-1) line matching the log search from line `from`. */
function searchLog(env: CommandEnv, query: string, from: number, dir: 1 | -1): void {
  const { log, dispatch } = env;
  if (!query.trim()) return;
  const i = findLogMatch(log.lines, query, from, dir);
  if (i === -1)
    return dispatch({ type: 'notice', notice: { text: `no line of this log contains "${query}"`, tone: 'warn' } });
  dispatch({ type: 'logJump', line: i, total: log.lines.length, height: log.height });
  dispatch({
    type: 'notice',
    notice: { text: `"${query}": line ${i + 1} of ${log.lines.length} (n next, N previous)`, tone: 'info' },
  });
}

export function runCommand(id: CommandId, env: CommandEnv): void {
  const { ui, dispatch, tree, log, actions } = env;
  const rows = tree.rows;
  const sel = tree.selected;
  const page = Math.max(1, log.height - 1);
  switch (id) {
    case 'approval.allow':
    case 'approval.always':
    case 'approval.deny':
      return runApprovalCommand(id, env);
    case 'tree.up':
      return dispatch({ type: 'move', rows, to: { by: -1 } });
    case 'tree.down':
      return dispatch({ type: 'move', rows, to: { by: 1 } });
    case 'tree.first':
      return dispatch({ type: 'move', rows, to: 'first' });
    case 'tree.last':
      return dispatch({ type: 'move', rows, to: 'last' });
    case 'tree.fold':
      return dispatch({ type: 'fold', rows, open: false });
    case 'tree.unfold':
      return dispatch({ type: 'fold', rows, open: true });
    case 'log.up':
      return dispatch({ type: 'scrollLog', by: -1, total: log.lines.length, height: log.height });
    case 'log.down':
      return dispatch({ type: 'scrollLog', by: 1, total: log.lines.length, height: log.height });
    case 'log.pageUp':
      return dispatch({ type: 'scrollLog', by: -page, total: log.lines.length, height: log.height });
    case 'log.pageDown':
      return dispatch({ type: 'scrollLog', by: page, total: log.lines.length, height: log.height });
    case 'log.top':
      return dispatch({ type: 'scrollLog', by: 'top', total: log.lines.length, height: log.height });
    case 'log.bottom':
      return dispatch({ type: 'scrollLog', by: 'bottom', total: log.lines.length, height: log.height });
    case 'pane.switch':
      return dispatch({ type: 'focus' });
    case 'view.follow':
      dispatch({ type: 'toggleFollow', total: log.lines.length, height: log.height });
      return dispatch({
        type: 'notice',
        notice: { text: ui.follow ? 'log paused (f or End follows again)' : 'following the log', tone: 'info' },
      });
    case 'view.expand':
      return dispatch({ type: 'toggleExpand' });
    case 'view.archived':
      dispatch({ type: 'toggleArchived' });
      return dispatch({
        type: 'notice',
        notice: {
          text: ui.showArchived ? 'archived sessions hidden' : 'showing archived sessions (dimmed; d brings one back)',
          tone: 'info',
        },
      });
    case 'view.filter':
      return dispatch({ type: 'filterStart' });
    case 'view.clearFilter':
      dispatch({ type: 'filterEnd', keep: false });
      return dispatch({ type: 'notice', notice: { text: 'filter cleared', tone: 'info' } });
    case 'log.search':
      return dispatch({ type: 'searchStart' });
    case 'log.searchNext':
      return searchLog(env, ui.search, log.top + 1, 1);
    case 'log.searchPrev':
      return searchLog(env, ui.search, log.top - 1, -1);
    case 'session.copyId':
      if (!sel) return;
      actions.copy(sel.id);
      return dispatch({ type: 'notice', notice: { text: `copied ${sel.id} (${label(sel)})`, tone: 'info' } });
    case 'view.redraw':
      return actions.redraw();
    case 'app.suspend':
      return actions.suspend();
    case 'app.help':
      return dispatch({ type: 'openHelp' });
    case 'help.close':
      return dispatch({ type: 'closeModal' });
    case 'help.up':
      return dispatch({ type: 'scrollHelp', by: -1, max: env.help.lines - env.help.height });
    case 'help.down':
      return dispatch({ type: 'scrollHelp', by: 1, max: env.help.lines - env.help.height });
    case 'app.quit': {
      const n = tree.ctx.runningAgents;
      const p = tree.ctx.ptySessions;
      if (n === 0 && p === 0) return actions.quit();
      const parts: string[] = [];
      if (n > 0)
        parts.push(
          `${n} agent${n === 1 ? ' is' : 's are'} still working. They keep running after the dashboard quits (klaude ui or klaude sessions finds them again).`,
        );
      if (p > 0) {
        parts.push(
          `${p} PTY session${p === 1 ? '' : 's'} ${p === 1 ? 'is' : 'are'} running. They keep running too: they are their own processes (klaude talk <id> attaches, klaude ui shows them; their conversations stay resumable).`,
        );
      }
      return dispatch({
        type: 'confirm',
        intent: { kind: 'quit', ptySessions: p },
        message: `${parts.join(' ')} Quit?${p > 0 ? ` (x: stop the PTY session${p === 1 ? '' : 's'} and quit)` : ''}`,
        dangerous: false,
      });
    }
    case 'confirm.stopPty':
      if (ui.modal?.kind !== 'confirm' || ui.modal.intent.kind !== 'quit') return;
      dispatch({ type: 'closeModal' });
      return actions.quit({ stopPtySessions: true });
    case 'session.talk':
      if (!sel) return;
      dispatch({ type: 'busy', text: `talking to ${label(sel)}…` });
      actions.talk(sel.id).then(
        (r) => {
          dispatch({ type: 'busy', text: null });
          dispatch({ type: 'notice', notice: { text: r.message, tone: r.ok ? 'info' : 'warn' } });
        },
        (e: unknown) => {
          dispatch({ type: 'busy', text: null });
          dispatch({ type: 'notice', notice: { text: errText(e), tone: 'error' } });
        },
      );
      return;
    case 'view.diff': {
      if (!sel) return;
      if (ui.diff) return dispatch({ type: 'showDiff', sessionId: null });
      const id = sel.id;
      dispatch({ type: 'showDiff', sessionId: id });
      actions.diff(id).then(
        (d) => dispatch({ type: 'diffLoaded', sessionId: id, diff: d }),
        (e: unknown) => dispatch({ type: 'diffLoaded', sessionId: id, diff: { error: errText(e) } }),
      );
      return;
    }
    case 'view.screen':
      dispatch({ type: 'toggleScreen' });
      return dispatch({
        type: 'notice',
        notice: {
          text: ui.showScreen
            ? 'showing the log (v shows the live screen)'
            : 'showing the live screen (v shows the log)',
          tone: 'info',
        },
      });
    case 'session.open':
      if (!sel) return;
      if (sel.type !== 'tui' && isActive(sel.status)) {
        // Checkout stops the headless run first: say so before cutting a turn off.
        return dispatch({
          type: 'confirm',
          intent: { kind: 'open', sessionId: sel.id },
          message: `${label(sel)} is ${sel.status}. Opening it stops its headless run first (the current turn is cut off); you continue its conversation in ${sel.runtime === 'claude' ? 'claude' : `${sel.runtime}'s own CLI`}. Open it?`,
          dangerous: true,
        });
      }
      return openSession(env, sel.id);
    case 'session.new':
      dispatch({ type: 'busy', text: 'starting claude…' });
      actions.newSession().then(
        () => dispatch({ type: 'busy', text: null }),
        (e: unknown) => {
          dispatch({ type: 'busy', text: null });
          dispatch({ type: 'notice', notice: { text: errText(e), tone: 'error' } });
        },
      );
      return;
    case 'agent.start':
      dispatch({ type: 'openStart', parentId: sel?.id ?? null });
      actions.agentTypes().then(
        (r) => dispatch({ type: 'startChoices', choices: r.choices, problems: r.problems }),
        (e: unknown) => dispatch({ type: 'startChoices', choices: [], problems: [errText(e)] }),
      );
      return;
    case 'agent.message':
      if (sel) dispatch({ type: 'openMessage', sessionId: sel.id });
      return;
    case 'agent.interrupt':
      if (!sel) return;
      return dispatch({
        type: 'confirm',
        intent: { kind: 'interrupt', sessionIds: [sel.id] },
        message: `Interrupt ${label(sel)} (${sel.status})? Its current turn stops; the session stays and can be messaged again.`,
        dangerous: true,
      });
    case 'session.archive': {
      if (!sel) return;
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
      return dispatch({
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
    case 'confirm.yes':
      if (ui.modal?.kind === 'confirm') confirmed(env, ui.modal.intent);
      return;
    case 'confirm.no':
      return dispatch({ type: 'closeModal' });
    case 'picker.up':
      return dispatch({ type: 'pick', by: -1 });
    case 'picker.down':
      return dispatch({ type: 'pick', by: 1 });
    case 'picker.pick':
      if (ui.modal?.kind === 'start' && ui.modal.choices?.length) dispatch({ type: 'startStep', step: 'prompt' });
      return;
    case 'picker.cancel':
      return dispatch({ type: 'closeModal' });
    case 'input.submit':
      return submit(env);
    case 'input.cancel':
      if (ui.modal) return dispatch({ type: 'closeModal' });
      if (ui.searchEditing) return dispatch({ type: 'searchEnd', keep: false });
      return dispatch({ type: 'filterEnd', keep: false });
    case 'input.back':
      if (ui.modal?.kind === 'start') dispatch({ type: 'startStep', step: 'type' });
      return;
    case 'input.backspace':
      return dispatch({ type: 'edit', op: 'backspace' });
    case 'input.deleteWord':
      return dispatch({ type: 'edit', op: 'deleteWord' });
    case 'input.clear':
      return dispatch({ type: 'edit', op: 'clear' });
  }
}

/** The View commands: what the panes show (follow, results, archived, screen, diff), the tree filter, the log search. */
import type { CommandIn } from '../keymap.js';
import type { CommandEnv } from './command-env.js';
import type { UiAction } from '../state/ui-state.js';
import { bringRightPane, errText } from './command-feedback.js';
import { findLogMatch } from './log-search.js';
import { runReviewCommand } from './review-commands.js';

export function runViewCommand(id: CommandIn<'View'>, env: CommandEnv): void {
  const { ui, dispatch, log, actions } = env;
  switch (id) {
    case 'view.follow':
      dispatch({ type: 'toggleFollow', total: log.lines.length, height: log.height });
      return dispatch({
        type: 'notice',
        notice: { text: ui.follow ? 'log paused (f or End follows again)' : 'following the log', tone: 'info' },
      });
    case 'view.expand':
      return dispatch({ type: 'toggleExpand' });
    case 'view.archived':
      return toggleSaying(
        dispatch,
        'toggleArchived',
        ui.showArchived ? 'archived sessions hidden' : 'showing archived sessions (dimmed; d brings one back)',
      );
    case 'view.group':
      return toggleSaying(
        dispatch,
        'toggleGroup',
        ui.groupByState ? 'newest first' : 'by state: needs you, then working, then done',
      );
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
    case 'view.redraw':
      return actions.redraw();
    case 'view.projects':
      return toggleSaying(
        dispatch,
        'toggleProjects',
        ui.allProjects ? 'this project only' : 'every project of this klaude home (needs you first)',
      );
    case 'view.peek':
      return peek(env);
    case 'view.diff':
      return toggleDiff(env);
    case 'view.reviews':
    case 'review.next':
    case 'review.prev':
    case 'review.fold':
    case 'review.send':
    case 'review.start':
      return runReviewCommand(id, env);
    case 'view.screen':
      if (!ui.showScreen) bringRightPane(env);
      return toggleSaying(
        dispatch,
        'toggleScreen',
        ui.showScreen ? 'showing the log (v shows the live screen)' : 'showing the live screen (v shows the log)',
      );
  }
}

/** A PTY session's last screen, or another session's last message, in a dialog; the selection stays. */
function peek(env: CommandEnv): void {
  const sel = env.tree.selected;
  if (!sel) return;
  const id = sel.id;
  const what = env.processes.get(id)?.pty ? 'screen' : 'message';
  env.dispatch({ type: 'openPeek', sessionId: id, what });
  env.actions.peek(id, what).then(
    (lines) => env.dispatch({ type: 'peekLoaded', sessionId: id, lines }),
    (e: unknown) => env.dispatch({ type: 'peekLoaded', sessionId: id, error: errText(e) }),
  );
}

/** The selected agent's diff in the log's place (read in the background), or back to its log. */
function toggleDiff(env: CommandEnv): void {
  const { ui, dispatch, actions } = env;
  const sel = env.tree.selected;
  if (!sel) return;
  if (ui.diff) return dispatch({ type: 'showDiff', sessionId: null });
  const id = sel.id;
  dispatch({ type: 'showDiff', sessionId: id });
  bringRightPane(env);
  actions.diff(id).then(
    (d) => dispatch({ type: 'diffLoaded', sessionId: id, diff: d }),
    (e: unknown) => dispatch({ type: 'diffLoaded', sessionId: id, diff: { error: errText(e) } }),
  );
}

/** Show the next (dir 1) or previous (-1) line matching the log search from line `from`. */
export function searchLog(env: CommandEnv, query: string, from: number, dir: 1 | -1): void {
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

/** A view toggle, and the footer saying what the view shows now. */
function toggleSaying(
  dispatch: (a: UiAction) => void,
  type: 'toggleArchived' | 'toggleGroup' | 'toggleProjects' | 'toggleScreen',
  text: string,
): void {
  dispatch({ type });
  dispatch({ type: 'notice', notice: { text, tone: 'info' } });
}

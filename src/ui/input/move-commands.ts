/** The Move commands: the tree selection and folds, the log's scroll, the focused pane. */
import type { CommandIn } from '../keymap.js';
import type { CommandEnv } from './command-env.js';

export function runMoveCommand(id: CommandIn<'Move'>, env: CommandEnv): void {
  const { dispatch, tree, log } = env;
  const rows = tree.rows;
  const page = Math.max(1, log.height - 1);
  switch (id) {
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
  }
}

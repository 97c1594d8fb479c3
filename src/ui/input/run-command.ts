/**
 * What each keymap command does. UI-only commands dispatch reducer actions; the rest call the
 * dashboard actions and report the outcome in the footer. One handler per help group
 * (move-, session-, view-, app-, dialog-commands.ts); this switch routes every command id to its
 * group's handler, so `switch-exhaustiveness-check` fails on an id no handler runs.
 */
import type { CommandId } from '../keymap.js';
import { runAppCommand } from './app-commands.js';
import type { CommandEnv } from './command-env.js';
import { runDialogCommand } from './dialog-commands.js';
import { runMoveCommand } from './move-commands.js';
import { runSessionCommand } from './session-commands.js';
import { runViewCommand } from './view-commands.js';

export function runCommand(id: CommandId, env: CommandEnv): void {
  switch (id) {
    case 'tree.up':
    case 'tree.down':
    case 'tree.first':
    case 'tree.last':
    case 'tree.fold':
    case 'tree.unfold':
    case 'log.up':
    case 'log.down':
    case 'log.pageUp':
    case 'log.pageDown':
    case 'log.top':
    case 'log.bottom':
    case 'pane.switch':
      return runMoveCommand(id, env);
    case 'session.open':
    case 'session.talk':
    case 'session.new':
    case 'agent.start':
    case 'agent.message':
    case 'agent.interrupt':
    case 'approval.allow':
    case 'approval.always':
    case 'approval.deny':
    case 'session.archive':
    case 'session.copyId':
    case 'session.rename':
    case 'session.pin':
      return runSessionCommand(id, env);
    case 'view.filter':
    case 'view.clearFilter':
    case 'log.search':
    case 'log.searchNext':
    case 'log.searchPrev':
    case 'view.follow':
    case 'view.screen':
    case 'view.diff':
    case 'view.expand':
    case 'view.archived':
    case 'view.group':
    case 'view.redraw':
    case 'view.projects':
    case 'view.peek':
    case 'view.reviews':
    case 'review.next':
    case 'review.prev':
    case 'review.fold':
    case 'review.send':
    case 'review.start':
      return runViewCommand(id, env);
    case 'app.suspend':
    case 'app.help':
    case 'app.quit':
      return runAppCommand(id, env);
    case 'help.close':
    case 'help.up':
    case 'help.down':
    case 'confirm.yes':
    case 'confirm.no':
    case 'confirm.stopPty':
    case 'picker.up':
    case 'picker.down':
    case 'picker.pick':
    case 'picker.parent':
    case 'picker.cancel':
    case 'input.submit':
    case 'input.cancel':
    case 'input.back':
    case 'input.backspace':
    case 'input.deleteWord':
    case 'input.clear':
    case 'peek.close':
      return runDialogCommand(id, env);
  }
}

/**
 * The dashboard's one stdin reader. A single `useInput`, active only while the dashboard owns
 * the terminal; the current scope (pane, dialog) decides what a key means, through the keymap.
 * Dialogs do not read stdin themselves, so no stray handler can act behind a dialog or while
 * claude has the terminal.
 */
import { useInput } from 'ink';
import { useRef } from 'react';
import type { UiState } from '../state/ui-state.js';
import { activeScope, treeView } from '../view.js';
import { resolveKey, splitKeys, type KeyPress } from './keys.js';
import type { CommandEnv } from './command-env.js';
import { runCommand } from './run-command.js';

export function useKeyRouter(env: CommandEnv, getUi: () => UiState, isActive: boolean): void {
  // The handler reads the latest render's view and the store's current state, not the ones it
  // was registered with.
  const latest = useRef(env);
  latest.current = env;
  useInput(
    (input, key) => {
      const first = latest.current;
      let ui = getUi();
      const keys = splitKeys(input, key, activeScope(ui) === 'input');
      keys.forEach((k, i) => {
        ui = getUi();
        // Later keys of one chunk see the state the earlier ones left (React renders after the batch).
        const tree =
          i === 0
            ? first.tree
            : treeView(
                first.sessions,
                ui,
                first.tree.ctx.narrow,
                first.processes,
                first.approvals,
                first.projects,
                first.reviews,
              );
        handleKey(k, { ...first, ui, tree });
      });
    },
    { isActive },
  );
}

function handleKey(k: KeyPress, e: CommandEnv): void {
  const sc = activeScope(e.ui);
  if (e.ui.notice) e.dispatch({ type: 'notice', notice: null });
  // Ctrl-C twice quits even while agents run.
  if (k.name === 'ctrl+c' && e.ui.modal?.kind === 'confirm' && e.ui.modal.intent.kind === 'quit') {
    runCommand('confirm.yes', e);
    return;
  }
  const r = resolveKey(k.name, k.input, sc, e.tree.ctx);
  switch (r.kind) {
    case 'command':
      runCommand(r.binding.id, e);
      return;
    case 'text':
      e.dispatch({ type: 'edit', op: 'insert', text: r.text });
      return;
    case 'disabled':
      e.dispatch({ type: 'notice', notice: { text: `${r.binding.label}: ${r.reason}`, tone: 'warn' } });
      return;
    case 'unbound':
      e.dispatch({ type: 'notice', notice: { text: r.reason, tone: 'warn' } });
      return;
    case 'ignore':
      return;
  }
}

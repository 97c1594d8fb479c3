/** How commands report: a session's name, an error in words, busy text then a notice. */
import { shortId } from '../../core/ids.js';
import type { SessionView } from '../../feeds/session-tree.js';
import type { CommandEnv } from './command-env.js';
import { errorNotice } from '../state/notice.js';

export const label = (s: SessionView): string => `${s.type === 'tui' ? 'claude' : s.type} ${shortId(s.id)}`;

export const errText = (e: unknown): string => {
  const err = e as { message?: string; code?: string; hint?: string };
  return `${err.message ?? String(e)}${err.code ? ` [${err.code}]` : ''}${err.hint ? ` — ${err.hint}` : ''}`;
};

/** Run an action in the background: busy text while it runs, then a notice (an error about `about`). */
export function track<T>(
  env: CommandEnv,
  busy: string,
  p: Promise<T>,
  done: (r: T) => string,
  about?: SessionView,
): void {
  env.dispatch({ type: 'busy', text: busy });
  p.then(
    (r) => {
      env.dispatch({ type: 'busy', text: null });
      env.dispatch({ type: 'notice', notice: { text: done(r), tone: 'info' } });
    },
    (e: unknown) => {
      env.dispatch({ type: 'busy', text: null });
      // About the session as it is now: its status may have moved on while the action ran, and an
      // error is meant to leave when the status moves on after it is shown, not to never show.
      const status = about && env.statusNow?.(about.id);
      env.dispatch({ type: 'notice', notice: errorNotice(e, about && status ? { id: about.id, status } : about) });
    },
  );
}

/**
 * A key that puts something in the right pane (a diff, the reviews, the live screen) shows that pane
 * on a narrow terminal, where one pane shows at a time: there, from the tree, it seemed to do nothing.
 */
export function bringRightPane(env: CommandEnv): void {
  if (env.tree.ctx.narrow && env.ui.focus === 'tree') env.dispatch({ type: 'focus', pane: 'log' });
}

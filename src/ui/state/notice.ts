/** The footer's one line of news: what an action did, or why it failed. */
import type { SessionView } from '../../feeds/session-tree.js';

export interface Notice {
  text: string;
  tone: 'info' | 'warn' | 'error';
  /** What to do about it: kept in view when the line is too narrow for all (the text is cut first). */
  hint?: string;
  /**
   * The session the notice is about, as it was: once its status has moved on (or it is gone), the
   * cause may be too, and the notice is no longer shown.
   */
  about?: { id: string; status: string };
}

/** An error as a notice: its message and code, its hint apart; about `s` when it concerns a session. */
export function errorNotice(e: unknown, s?: Pick<SessionView, 'id' | 'status'>): Notice {
  const err = e as { message?: string; code?: string; hint?: string };
  return {
    text: `${err.message ?? String(e)}${err.code ? ` [${err.code}]` : ''}`,
    tone: 'error',
    ...(err.hint ? { hint: err.hint } : {}),
    ...(s ? { about: { id: s.id, status: s.status } } : {}),
  };
}

/** Whether a notice still holds: its session has neither changed status nor gone. */
export function noticeHolds(n: Notice, statusOf: (id: string) => string | undefined): boolean {
  return !n.about || statusOf(n.about.id) === n.about.status;
}

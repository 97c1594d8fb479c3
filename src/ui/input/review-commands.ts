/** The review keys (ui/bindings/review-keys.ts): the reviews pane, choosing and folding a reviewer, sending, a new review. */
import { shortId } from '../../core/ids.js';
import { findingsCount, reviewerName } from '../../core/findings.js';
import type { ReviewView } from '../../db/repos/reviews.js';
import type { CommandIn } from '../keymap.js';
import type { CommandEnv } from './command-env.js';
import { bringRightPane, track } from './command-feedback.js';

type ReviewCommand = Extract<CommandIn<'View'>, 'view.reviews' | `review.${string}`>;

/** The reviews of the session the pane shows (the selected one, or the one a selected reviewer reviews). */
function shownReviews(env: CommandEnv): { originId: string; list: readonly ReviewView[] } | null {
  const sel = env.tree.selected;
  if (!sel) return null;
  const originId = sel.reviewOf ?? sel.id;
  return { originId, list: env.reviews?.get(originId) ?? [] };
}

export function runReviewCommand(id: ReviewCommand, env: CommandEnv): void {
  const { dispatch } = env;
  const shown = shownReviews(env);
  switch (id) {
    case 'view.reviews': {
      const sel = env.tree.selected;
      if (!sel || !shown) return;
      if (env.ui.review) return dispatch({ type: 'showReviews', sessionId: null });
      // A selected reviewer: the pane opens on it.
      const at = shown.list.findIndex((r) => r.sessionId === sel.id);
      dispatch({ type: 'showReviews', sessionId: sel.id, cursor: Math.max(0, at) });
      return bringRightPane(env);
    }
    case 'review.next':
    case 'review.prev':
      return dispatch({ type: 'reviewCursor', by: id === 'review.next' ? 1 : -1, count: shown?.list.length ?? 0 });
    case 'review.fold': {
      const cur = env.tree.ctx.reviews?.current;
      if (cur) dispatch({ type: 'reviewFold', reviewerId: cur.sessionId });
      return;
    }
    case 'review.send':
      return askSend(env);
    case 'review.start':
      return startReview(env, shown?.originId);
  }
}

/** Confirm first: the message resumes a stopped agent (it costs a turn). */
function askSend(env: CommandEnv): void {
  const cur = env.tree.ctx.reviews?.current;
  if (!cur || cur.findings === null) return;
  const o = shortId(cur.originId);
  const sent = cur.sentAt !== null ? ' again (they were sent before)' : '';
  env.dispatch({
    type: 'confirm',
    intent: { kind: 'sendReview', originId: cur.originId, reviewIds: [cur.sessionId] },
    message: `Give ${reviewerName(cur)}'s ${findingsCount(cur.findings)} to ${o} as a message${sent}? A stopped agent resumes with it.`,
    dangerous: false,
  });
}

/** The confirm said yes. */
export function sendReview(env: CommandEnv, originId: string, reviewIds: readonly string[]): void {
  const about = env.tree.byId.get(originId);
  for (const id of reviewIds)
    track(
      env,
      `sending the findings of ${shortId(id)}…`,
      env.actions.sendReview(id),
      (r) => `gave ${r.findings} finding${r.findings === 1 ? '' : 's'} to ${shortId(originId)} (${r.delivered})`,
      about,
    );
}

function startReview(env: CommandEnv, originId: string | undefined): void {
  if (!originId) return;
  track(
    env,
    `starting a review of ${shortId(originId)}…`,
    env.actions.startReview(originId),
    (r) =>
      `${r.sessionIds.map(shortId).join(', ')} (${r.runtime}) reviews ${shortId(originId)}, read-only${r.notes?.length ? ` — ${r.notes.join('; ')}` : ''}`,
    env.tree.byId.get(originId),
  );
}

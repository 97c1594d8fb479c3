/**
 * A reviewer's run ended (`klaude review`): its findings are read from its final answer
 * (core/findings.ts) and kept with the review, before the run's `done` line, so whoever the `done`
 * wakes (`klaude review` attached, `wait`, the dashboard) finds them. A run that did not end
 * `done`, or an answer without findings, keeps why instead (earlier findings stay).
 */
import type { EventOf } from '../core/events.js';
import { clip, oneLine } from '../core/tool-summary.js';
import { readFindings } from '../core/findings.js';
import { recordReviewResult } from '../db/repos/reviews.js';
import type { Deps } from './deps.js';

export function recordReviewEnd(d: Pick<Deps, 'db' | 'session' | 'log'>, done: Omit<EventOf<'done'>, 'ts'>): void {
  if (!d.session.reviewOf) return;
  try {
    const id = d.session.id;
    if (done.status !== 'done') {
      const why =
        done.status === 'failed'
          ? `its run failed: ${oneLine(done.error ?? 'no reason given')}`
          : `its run was ${done.status}`;
      recordReviewResult(d.db, id, { error: clip(why, 300) });
      return;
    }
    const text = done.finalText ?? '';
    const read = readFindings(text);
    recordReviewResult(
      d.db,
      id,
      read ?? {
        error: text.trim()
          ? 'its answer held no findings block klaude could read (`klaude logs` shows the answer)'
          : 'it gave no answer',
      },
    );
  } catch (err) {
    d.log.error('recording the review findings failed', { err });
  }
}

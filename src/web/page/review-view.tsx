/**
 * The reviews of a session (`klaude review`) on its pane: one section per reviewer, open or folded
 * (ClawTap's review tabs), with its verdict and findings, high first; "Send to <agent>" gives a
 * reviewer's findings to the reviewed agent as a message, "Review" starts another reviewer. A
 * reviewer's own pane says what it reviews.
 */
import { useState } from 'react';
import { bySeverity, findingPlace, findingsCount, reviewerName } from '../../core/findings.js';
import type { ReviewView } from '../../db/repos/reviews.js';
import type { Delivery } from '../../agent-ops/message.js';
import type { WebSession } from '../hub.js';
import { api, describe } from './api.js';
import { short, typeName } from './display.js';
import { Rich } from './rich-text.js';

const ENDED = new Set(['done', 'failed', 'interrupted', 'cancelled']);

function state(r: ReviewView): string {
  if (r.findings !== null) return findingsCount(r.findings);
  if (!ENDED.has(r.status)) return r.status === 'queued' ? 'queued' : 'reviewing…';
  return 'no findings read';
}

type Note = { text: string; error: boolean } | null;

function ReviewSection({ r, s, open }: { r: ReviewView; s: WebSession; open: boolean }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<Note>(null);
  // Open or folded as the person left it (the state pushed on each change does not reset it).
  const [shown, setShown] = useState(open);
  const send = (): void => {
    const again = r.sentAt !== null ? ' again' : '';
    if (!confirm(`Give these findings to ${typeName(s)} ${short(s.id)}${again}? A stopped agent resumes with them.`))
      return;
    setBusy(true);
    setNote(null);
    api
      .post<{ findings: number; delivery: Delivery }>(`/api/sessions/${r.sessionId}/review/send`)
      .then((x) =>
        setNote({
          text: `sent ${x.findings} finding${x.findings === 1 ? '' : 's'} to ${short(s.id)} (${x.delivery.delivered})`,
          error: false,
        }),
      )
      .catch((e: unknown) => setNote({ text: describe(e), error: true }))
      .finally(() => setBusy(false));
  };
  return (
    <details
      className="review"
      open={shown}
      onToggle={(e) => setShown(e.currentTarget.open)}
      data-testid="review"
      data-review={r.sessionId}
    >
      <summary>
        <b>{reviewerName(r)}</b> <span className="id">{short(r.sessionId)}</span>{' '}
        <span className={`badge st-${r.status}`}>{r.status}</span>{' '}
        <span data-testid="review-state">
          {r.subject === 'diff' ? 'of its diff' : 'of its answer'}: {state(r)}
        </span>
        {r.sentAt !== null ? <span className="muted"> · sent</span> : null}
      </summary>
      {r.focus ? <div className="muted">focus: {r.focus}</div> : null}
      {r.summary ? <div className="review-summary">{r.summary}</div> : null}
      {r.findings === null && r.error ? <div className="error">{r.error}</div> : null}
      {r.findings?.length === 0 ? <div className="muted">nothing to fix</div> : null}
      <ul className="findings">
        {bySeverity(r.findings ?? []).map((f, i) => (
          <li key={i} className={`finding sev-${f.severity}`} data-testid="finding">
            <span className="sev">{f.severity}</span> {findingPlace(f) ? <code>{findingPlace(f)}</code> : null}{' '}
            <span className="text">{f.text}</span>
          </li>
        ))}
      </ul>
      {r.findings !== null ? (
        <div className="buttons">
          <button disabled={busy} data-testid="review-send" onClick={send}>
            {r.sentAt !== null ? 'Send again' : `Send to ${short(s.id)}`}
          </button>
        </div>
      ) : null}
      {note ? (
        <div className={`note${note.error ? ' error' : ''}`} role={note.error ? 'alert' : 'status'}>
          <Rich text={note.text} />
        </div>
      ) : null}
    </details>
  );
}

export function Reviews({ s }: { s: WebSession }) {
  const [busy, setBusy] = useState(false);
  const [note, setNote] = useState<Note>(null);
  if (s.reviewOf) {
    return (
      <div className="muted" data-testid="review-of">
        a read-only review of {/* (a link: the hash opens it, as a row does; Back returns here) */}
        <a href={`#s=${s.reviewOf}`} data-testid="review-of-link">
          {short(s.reviewOf)}
        </a>
        : its findings show on that session
      </div>
    );
  }
  const start = (): void => {
    setBusy(true);
    setNote(null);
    api
      .post<{ sessionIds: string[]; subject: string; notes: string[] }>(`/api/sessions/${s.id}/review`)
      .then((x) =>
        setNote({
          text: `${x.sessionIds.map(short).join(', ')} reviews its ${x.subject === 'diff' ? 'diff' : 'answer'}, read-only${x.notes.length ? ` — ${x.notes.join('; ')}` : ''}`,
          error: false,
        }),
      )
      .catch((e: unknown) => setNote({ text: describe(e), error: true }))
      .finally(() => setBusy(false));
  };
  return (
    <section className="reviews" data-testid="reviews">
      <div className="row reviews-head">
        <span className="muted">
          {s.reviews.length === 0 ? 'no review yet' : `${s.reviews.length} review${s.reviews.length === 1 ? '' : 's'}`}
        </span>
        <button
          disabled={busy}
          data-testid="review-start"
          onClick={start}
          title="another runtime reviews its work, read-only"
        >
          Review
        </button>
      </div>
      {note ? (
        <div
          className={`note${note.error ? ' error' : ''}`}
          role={note.error ? 'alert' : 'status'}
          data-testid="review-start-note"
        >
          <Rich text={note.text} />
        </div>
      ) : null}
      {s.reviews.map((r) => (
        <ReviewSection key={r.sessionId} r={r} s={s} open={s.reviews.length <= 2} />
      ))}
    </section>
  );
}

/** "Needs you": permission requests (command, the rule "always" would add), waiting agents, failures. */
import { useState } from 'react';
import type { WebSession } from '../hub.js';
import { api, describe } from './api.js';
import { label, short, typeName } from './display.js';
import { Rich } from './rich-text.js';

export function NeedsYou(props: { items: WebSession[]; open: (id: string) => void }) {
  if (props.items.length === 0) return null;
  return (
    <section className="needs" data-testid="needs-you">
      <h2>Needs you ({props.items.length})</h2>
      {props.items.map((s) => (
        <NeedItem key={s.id} s={s} open={props.open} />
      ))}
    </section>
  );
}

function NeedItem({ s, open }: { s: WebSession; open: (id: string) => void }) {
  const ask = s.approvals[0];
  return (
    <div className={`need need-${ask ? 'approval' : s.status}`} data-testid="need" data-session={s.id}>
      <button className="link" onClick={() => open(s.id)}>
        <b>{typeName(s)}</b> {short(s.id)} · {label(s)}
      </button>
      {ask ? (
        <Approval s={s} ask={ask} />
      ) : s.status === 'waiting' ? (
        <div className="why">waiting for your answer</div>
      ) : (
        <Failure s={s} />
      )}
    </div>
  );
}

/** A failure, in red, with a way to clear it from here: archiving it (the log stays; Archived shows it). */
function Failure({ s }: { s: WebSession }) {
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const archive = (): void => {
    setBusy(true);
    setErr(null);
    api
      .post(`/api/sessions/${s.id}/archive`, { restore: false })
      .catch((e: unknown) => setErr(describe(e)))
      .finally(() => setBusy(false));
  };
  return (
    <>
      <div className="why error" data-testid="need-failed">
        failed{s.error ? `: ${s.error}` : ''}
      </div>
      <div className="buttons">
        <button disabled={busy} onClick={archive} data-testid="need-archive">
          Archive
        </button>
      </div>
      {err ? (
        <div className="error" role="alert">
          <Rich text={err} />
        </div>
      ) : null}
    </>
  );
}

export function Approval({ s, ask }: { s: WebSession; ask: WebSession['approvals'][number] }) {
  const [reason, setReason] = useState('');
  const [denying, setDenying] = useState(false);
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string | null>(null);
  const send = (path: string, body: object): void => {
    setBusy(true);
    setErr(null);
    api
      .post(`/api/sessions/${s.id}/${path}`, { request: String(ask.id), ...body })
      .catch((e: unknown) => setErr(describe(e)))
      .finally(() => setBusy(false));
  };
  return (
    <div className="approval" data-testid="approval">
      <div className="tool">
        <b>{ask.toolName}</b> <code>{ask.summary}</code>
      </div>
      {ask.suggestedRule ? (
        <div className="rule">
          always would allow: <code>{ask.suggestedRule}</code>
        </div>
      ) : null}
      <div className="buttons">
        <button disabled={busy} onClick={() => send('approve', {})} data-testid="approve">
          Approve
        </button>
        {ask.suggestedRule ? (
          <button disabled={busy} onClick={() => send('approve', { always: true })} data-testid="approve-always">
            Always
          </button>
        ) : null}
        <button disabled={busy} className="danger" onClick={() => setDenying(!denying)} data-testid="deny-open">
          Deny…
        </button>
      </div>
      {denying ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            send('deny', { message: reason });
          }}
        >
          <input
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            placeholder="why (the agent sees it)"
            aria-label="why you deny it (the agent sees it)"
            // Opened to be typed in: from the keyboard, the next key is the reason's, not the button's.
            autoFocus
            data-testid="deny-reason"
          />
          <button disabled={busy} className="danger" data-testid="deny">
            Deny
          </button>
        </form>
      ) : null}
      {err ? (
        <div className="error" role="alert">
          <Rich text={err} />
        </div>
      ) : null}
    </div>
  );
}

/**
 * One session: what it is, its actions (message, interrupt, archive, merge, diff) and its live log,
 * or, for a session running in a PTY, its live terminal (loaded with its first opening: xterm.js).
 */
import { lazy, Suspense, useState } from 'react';
import type { WebSession } from '../hub.js';
import { api, describe } from './api.js';
import { DiffView } from './diff-view.js';
import { cost, isLive, label, short, tokens } from './display.js';
import { LogView } from './log-view.js';
import { Approval } from './needs-you.js';

const TerminalView = lazy(() => import('./terminal-view.js').then((m) => ({ default: m.TerminalView })));

export function SessionPane({ s, back }: { s: WebSession; back: () => void }) {
  const [diff, setDiff] = useState(false);
  const [term, setTerm] = useState(s.pty);
  const showTerm = term && s.pty && !diff;
  return (
    <section className="pane" data-testid="session-pane" data-session={s.id}>
      <header>
        <button className="back" onClick={back} aria-label="back">
          ‹
        </button>
        <div>
          <b>{s.type}</b> <span className="id">{short(s.id)}</span>{' '}
          <span className={`badge st-${s.status}`}>{s.status}</span>
          <div className="muted">
            {label(s)} · {tokens(s)} {cost(s.costUsd)} {s.model ?? ''}
          </div>
        </div>
      </header>
      {s.approvals.map((a) => (
        <Approval key={a.id} s={s} ask={a} />
      ))}
      <Actions
        s={s}
        diff={diff}
        toggleDiff={() => setDiff(!diff)}
        terminal={s.pty ? { shown: showTerm, toggle: () => (setTerm(!showTerm), setDiff(false)) } : null}
      />
      {s.error ? <div className="error">{s.error}</div> : null}
      {showTerm ? (
        <Suspense fallback={<div className="muted">…</div>}>
          <TerminalView id={s.id} />
        </Suspense>
      ) : diff ? (
        <DiffView id={s.id} />
      ) : (
        <LogView id={s.id} />
      )}
    </section>
  );
}

/** Message, interrupt (confirmed), diff, merge (confirmed), archive: each answered with the CLI's words. */
interface ActionsProps {
  s: WebSession;
  diff: boolean;
  toggleDiff: () => void;
  /** A PTY session's terminal: shown or not, and the switch between it and the log. */
  terminal: { shown: boolean; toggle: () => void } | null;
}

function Actions({ s, diff, toggleDiff, terminal }: ActionsProps) {
  const [msg, setMsg] = useState('');
  const [note, setNote] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = (what: string, path: string, body: object = {}, confirmText?: string): void => {
    if (confirmText && !confirm(confirmText)) return;
    setBusy(true);
    setNote(null);
    api
      .post<unknown>(`/api/sessions/${s.id}/${path}`, body)
      .then(() => setNote(`${what}: done`))
      .catch((e: unknown) => setNote(describe(e)))
      .finally(() => setBusy(false));
  };
  return (
    <>
      <form
        className="row"
        onSubmit={(e) => {
          e.preventDefault();
          if (msg.trim()) run('message', 'message', { prompt: msg });
          setMsg('');
        }}
      >
        <input
          value={msg}
          onChange={(e) => setMsg(e.target.value)}
          placeholder="message the agent"
          data-testid="message-input"
        />
        <button disabled={busy || !msg.trim()} data-testid="message-send">
          Send
        </button>
      </form>
      <div className="buttons">
        {isLive(s) ? (
          <button
            disabled={busy}
            className="danger"
            data-testid="interrupt"
            onClick={() => run('interrupt', 'interrupt', {}, `Interrupt ${s.type} ${short(s.id)}?`)}
          >
            Interrupt
          </button>
        ) : null}
        {terminal ? (
          <button onClick={terminal.toggle} data-testid="terminal-toggle">
            {terminal.shown ? 'Log' : 'Terminal'}
          </button>
        ) : null}
        <button disabled={busy} onClick={toggleDiff} data-testid="diff-toggle">
          {diff ? 'Log' : 'Diff'}
        </button>
        {s.worktreeBranch ? (
          <button
            disabled={busy}
            data-testid="merge"
            onClick={() => run('merge', 'merge', {}, `Merge ${s.worktreeBranch} into the project's branch?`)}
          >
            Merge
          </button>
        ) : null}
        <button
          disabled={busy}
          data-testid="archive"
          onClick={() => run(s.archivedAt ? 'restore' : 'archive', 'archive', { restore: !!s.archivedAt })}
        >
          {s.archivedAt ? 'Restore' : 'Archive'}
        </button>
      </div>
      {note ? (
        <div className="note" data-testid="action-note">
          {note}
        </div>
      ) : null}
    </>
  );
}

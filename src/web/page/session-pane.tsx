/**
 * One session: what it is, its actions (message, interrupt, archive, merge, diff) and its live log,
 * or, for a session running in a PTY, its live terminal (loaded with its first opening: xterm.js).
 */
import { lazy, Suspense, useEffect, useState } from 'react';
import type { WebSession } from '../hub.js';
import { DiffView } from './diff-view.js';
import { cost, isLive, label, short, tokens, turnRunning, typeName } from './display.js';
import { progressLabel } from '../../core/progress.js';
import { LogView } from './log-view.js';
import { Approval } from './needs-you.js';
import { Actions } from './session-actions.js';
import { Reviews } from './review-view.js';

const TerminalView = lazy(() => import('./terminal-view.js').then((m) => ({ default: m.TerminalView })));

export function SessionPane({ s, back }: { s: WebSession; back: () => void }) {
  const [diff, setDiff] = useState(false);
  const [term, setTerm] = useState(s.pty);
  const [pending, setPending] = useState<string[]>([]);
  // Once it has stopped, a message it had not got is either in its log or was dropped (and said so).
  const live = isLive(s);
  useEffect(() => {
    if (!live) setPending([]);
  }, [live]);
  const showTerm = term && s.pty && !diff;
  // (a phone has no hover: the row's figure is explained here)
  const progress = turnRunning(s) ? progressLabel(s.progress, s.type) : '';
  return (
    <section className="pane" data-testid="session-pane" data-session={s.id}>
      <header>
        <button className="back" onClick={back} aria-label="close" title="close (Esc)">
          ‹
        </button>
        <div>
          <b>{typeName(s)}</b> <span className="id">{short(s.id)}</span>{' '}
          <span className={`badge st-${s.status}`}>{s.status}</span>
          <div className="muted">
            {[label(s), [tokens(s), cost(s.costUsd), s.model ?? ''].filter(Boolean).join(' ')]
              .filter(Boolean)
              .join(' · ')}
          </div>
          {s.sandbox ? (
            <div className="muted where" data-testid="pane-sandbox">
              {s.sandbox}
            </div>
          ) : null}
          {s.zone ? (
            <div className="muted where" data-testid="pane-zone">
              runs in zone <code>{s.zone}</code> (another machine, over ssh)
            </div>
          ) : null}
          {progress ? (
            <div className="muted where" data-testid="pane-progress">
              progress <b>{progress}</b> · {s.progress?.basis}
            </div>
          ) : null}
          {s.worktreeBranch ? (
            <div className="muted where" data-testid="pane-worktree">
              in its own worktree · branch <code>{s.worktreeBranch}</code>
            </div>
          ) : null}
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
        pending={pending}
        setPending={setPending}
      />
      {s.error ? <div className="error">{s.error}</div> : null}
      {s.pty ? null : <Reviews s={s} />}
      {showTerm ? (
        <div className="pane-body">
          <Suspense fallback={<div className="muted">…</div>}>
            <TerminalView id={s.id} />
          </Suspense>
        </div>
      ) : diff ? (
        <div className="pane-body">
          <DiffView id={s.id} />
        </div>
      ) : (
        <LogView id={s.id} pending={pending} />
      )}
    </section>
  );
}

/**
 * The page: sign in with the token (on load, and whenever a new `#token=` link is pasted into the
 * tab), then one event stream of the live state (every project's sessions) and, for the session
 * open, one of its log. Phone first: one column, the session replacing the list (Back returns to
 * it); on a wide screen the list and the session side by side.
 */
import { useCallback, useEffect, useMemo, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { WebSession } from '../hub.js';
import { NoAnswer, type SignInResult, signIn } from './api.js';
import { useAlerts, useNotifyPermission } from './alerts.js';
import { isLive, needsYou } from './display.js';
import { setLink, useLink, useLiveState } from './live-state.js';
import { useSelection } from './navigation.js';
import { NeedsYou } from './needs-you.js';
import { SessionPane } from './session-pane.js';
import { SignedOut } from './signed-out.js';
import { StartForm } from './start-form.js';
import { TreeList } from './tree-list.js';

/** A clock for running sessions: ticks once a second only while something runs. */
function useNow(active: boolean): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!active) return;
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [active]);
  return now;
}

/**
 * Signed in or not; signs in again whenever the tab's fragment gets a new `#token=`. `tries`
 * counts the attempts in a row that got no answer (the offline screen's backoff).
 */
function useSignIn(): { result: SignInResult | null; tries: number; retry: () => void } {
  const [result, setResult] = useState<SignInResult | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [tries, setTries] = useState(0);
  useEffect(() => {
    let current = true;
    void signIn().then((r) => {
      if (!current) return;
      setTries((n) => (!r.ok && r.problem instanceof NoAnswer ? n + 1 : 0));
      setLink(r.ok ? 'connecting' : 'signed-out');
      setResult(r);
    });
    return () => void (current = false);
  }, [attempt]);
  useEffect(() => {
    const onHash = (): void => {
      if (/(?:^#|&)token=/.test(location.hash)) setAttempt((n) => n + 1);
    };
    window.addEventListener('hashchange', onHash);
    return () => window.removeEventListener('hashchange', onHash);
  }, []);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { result, tries, retry };
}

function App() {
  const { result, tries, retry } = useSignIn();
  const link = useLink();
  const signedIn = result?.ok === true && link !== 'signed-out';
  const nav = useSelection();
  const [starting, setStarting] = useState(false);
  const [archived, setArchived] = useState(false);
  const state = useLiveState(signedIn);
  const all = useMemo(() => state?.projects.flatMap((p) => p.sessions) ?? [], [state]);
  const needs = useMemo(() => all.filter((s) => needsYou(s) !== null), [all]);
  const now = useNow(all.some(isLive));
  const notify = useNotifyPermission();
  useAlerts(needs, signedIn ? state : null, nav.open);
  if (result === null) return <div className="center muted">…</div>;
  if (!result.ok) return <SignedOut problem={result.problem} tries={tries} retry={retry} />;
  if (link === 'signed-out') return <SignedOut problem={null} tries={0} wasSignedIn retry={retry} />;
  const open = all.find((s) => s.id === nav.selected) ?? null;
  const down = link === 'down';
  return (
    <div className={`app${open ? ' has-pane' : ''}${down ? ' is-down' : ''}`}>
      {down ? (
        <div className="down-banner" role="status" data-testid="down-banner">
          klaude web does not answer — reconnecting…
        </div>
      ) : null}
      <div className="list">
        <header className="top">
          <h1>klaude</h1>
          <span
            className={`conn ${link === 'live' ? 'on' : 'off'}`}
            title={link === 'live' ? 'live' : 'reconnecting'}
          />
          <div className="spacer" />
          {notify.permission === 'default' ? (
            <button onClick={notify.ask} data-testid="notify-me">
              Notify me
            </button>
          ) : null}
          <button onClick={() => setArchived(!archived)}>{archived ? 'Hide archived' : 'Archived'}</button>
          <button onClick={() => setStarting(!starting)} data-testid="start-open">
            {starting ? 'Close' : 'Start'}
          </button>
        </header>
        {starting && state ? (
          <StartForm projects={state.projects} started={(id) => (setStarting(false), nav.open(id))} />
        ) : null}
        <NeedsYou items={needs} open={nav.open} />
        {state ? (
          <TreeList
            projects={state.projects}
            now={now}
            selected={nav.selected}
            showArchived={archived}
            open={nav.open}
          />
        ) : (
          <div className="muted">loading…</div>
        )}
      </div>
      {open ? (
        <>
          <NeedsBar needs={needs.filter((s) => s.id !== open.id)} back={nav.close} />
          <SessionPane key={open.id} s={open} back={nav.close} />
        </>
      ) : (
        <EmptyPane missing={state !== null && nav.selected !== null} />
      )}
    </div>
  );
}

/** Phone, a session open: what else needs the person, one tap from the list. */
function NeedsBar({ needs, back }: { needs: WebSession[]; back: () => void }) {
  if (needs.length === 0) return null;
  return (
    <button className="needs-bar" onClick={back} data-testid="needs-bar">
      {needs.length} {needs.length === 1 ? 'needs' : 'need'} you · back to the list <span aria-hidden>›</span>
    </button>
  );
}

/** Wide screens, nothing open: the right side says what goes there. */
function EmptyPane({ missing }: { missing: boolean }) {
  return (
    <section className="pane empty-pane" data-testid="empty-pane">
      <p className="muted">
        {missing
          ? 'That session is not here any more. Pick another on the left.'
          : 'Pick a session on the left to read its log, answer it and act on it — or Start a new one.'}
      </p>
      <p className="muted">
        <kbd>Esc</kbd> or × closes the open session.
      </p>
    </section>
  );
}

if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/sw.js').catch(() => undefined);
createRoot(document.getElementById('root')!).render(<App />);

/**
 * The page: sign in with the token, then one event stream of the live state (every project's
 * sessions) and, for the session open, one of its log. Phone first: one column, the session
 * replacing the list; on a wide screen the list and the session side by side.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import type { WebSession, WebState } from '../hub.js';
import { signIn, UNREACHABLE } from './api.js';
import { isLive, label, needsYou, short } from './display.js';
import { NeedsYou } from './needs-you.js';
import { SessionPane } from './session-pane.js';
import { StartForm } from './start-form.js';
import { TreeList } from './tree-list.js';

function useLiveState(enabled: boolean): { state: WebState | null; connected: boolean } {
  const [state, setState] = useState<WebState | null>(null);
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    if (!enabled) return;
    // EventSource reconnects by itself and sends Last-Event-ID: the server skips an unchanged state.
    const es = new EventSource('/api/events');
    es.addEventListener('state', (m) => setState(JSON.parse((m as MessageEvent<string>).data) as WebState));
    es.onopen = () => setConnected(true);
    es.onerror = () => setConnected(false);
    return () => es.close();
  }, [enabled]);
  return { state, connected };
}

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

/** Title count, and a notification when a session starts needing the person. */
function useAlerts(needs: WebSession[], loaded: boolean): void {
  const seen = useRef<Set<string> | null>(null);
  useEffect(() => {
    // What already needed the person when the page opened is listed, not announced.
    if (!loaded) return;
    document.title = needs.length ? `(${needs.length}) klaude` : 'klaude';
    const keys = new Set(needs.map((s) => `${s.id}:${s.approvals[0]?.id ?? s.status}`));
    if (seen.current && typeof Notification !== 'undefined' && Notification.permission === 'granted') {
      for (const s of needs) {
        const k = `${s.id}:${s.approvals[0]?.id ?? s.status}`;
        if (seen.current.has(k)) continue;
        const body = s.approvals[0] ? `${s.approvals[0].toolName}: ${s.approvals[0].summary}` : label(s);
        new Notification(`${s.type} ${short(s.id)} needs you`, { body, tag: k });
      }
    }
    seen.current = keys;
  }, [needs, loaded]);
}

function App() {
  const [auth, setAuth] = useState<'checking' | 'no' | 'yes'>('checking');
  const [why, setWhy] = useState<string | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [starting, setStarting] = useState(false);
  const [archived, setArchived] = useState(false);
  useEffect(() => {
    void signIn().then((failed) => (setWhy(failed), setAuth(failed === null ? 'yes' : 'no')));
  }, []);
  const { state, connected } = useLiveState(auth === 'yes');
  const all = useMemo(() => state?.projects.flatMap((p) => p.sessions) ?? [], [state]);
  const needs = useMemo(() => all.filter((s) => needsYou(s) !== null), [all]);
  const now = useNow(all.some(isLive));
  useAlerts(needs, state !== null);
  if (auth === 'checking') return <div className="center muted">…</div>;
  if (auth === 'no') return <SignedOut why={why} />;
  const open = all.find((s) => s.id === selected) ?? null;
  return (
    <div className={`app${open ? ' has-pane' : ''}`}>
      <div className="list">
        <header className="top">
          <h1>klaude</h1>
          <span className={`conn ${connected ? 'on' : 'off'}`} title={connected ? 'live' : 'reconnecting'} />
          <div className="spacer" />
          {typeof Notification !== 'undefined' && Notification.permission === 'default' ? (
            <button onClick={() => void Notification.requestPermission()}>Notify me</button>
          ) : null}
          <button onClick={() => setArchived(!archived)}>{archived ? 'Hide archived' : 'Archived'}</button>
          <button onClick={() => setStarting(!starting)} data-testid="start-open">
            {starting ? 'Close' : 'Start'}
          </button>
        </header>
        {starting && state ? (
          <StartForm projects={state.projects} started={(id) => (setStarting(false), setSelected(id))} />
        ) : null}
        <NeedsYou items={needs} open={setSelected} />
        {state ? (
          <TreeList
            projects={state.projects}
            now={now}
            selected={selected}
            showArchived={archived}
            open={setSelected}
          />
        ) : (
          <div className="muted">loading…</div>
        )}
      </div>
      {open ? <SessionPane key={open.id} s={open} back={() => setSelected(null)} /> : null}
    </div>
  );
}

function SignedOut({ why }: { why: string | null }) {
  if (why === UNREACHABLE)
    return (
      <div className="center" data-testid="unreachable">
        <h1>klaude</h1>
        <p>
          klaude web does not answer: it is stopped, or this device is offline. Start it with <code>klaude web</code> on
          its machine, then retry.
        </p>
        <button onClick={() => location.reload()}>Retry</button>
      </div>
    );
  return (
    <div className="center" data-testid="signed-out">
      <h1>klaude</h1>
      {why && why !== 'not signed in' ? <p data-testid="sign-in-error">{why}</p> : null}
      <p>
        Not signed in. Open a link <code>klaude web</code> prints (each signs in one browser, once).
      </p>
    </div>
  );
}

if ('serviceWorker' in navigator) void navigator.serviceWorker.register('/sw.js').catch(() => undefined);
createRoot(document.getElementById('root')!).render(<App />);

/**
 * The screens before the app: the server does not answer (retried by itself, with backoff, and at
 * once when the device is back online or the page visible again), or this page is not signed in
 * (with why, and how to get a link).
 */
import { useEffect } from 'react';
import { NoAnswer, RequestFailed } from './api.js';
import { backoff, onWake } from './live-state.js';
import { Problem } from './rich-text.js';

interface Props {
  /** Why the sign-in failed: the server's refusal, no answer, or null (simply not signed in). */
  problem: unknown;
  /** Signed in a moment ago: the server signed this page out (its token was rotated). */
  wasSignedIn?: boolean;
  /** Attempts in a row that got no answer: the next one waits longer. */
  tries: number;
  retry: () => void;
}

export function SignedOut({ problem, wasSignedIn, tries, retry }: Props) {
  if (problem instanceof NoAnswer) return <Unreachable tries={tries} retry={retry} />;
  const refused = problem instanceof RequestFailed && problem.error.code !== 'E_WEB_AUTH';
  return (
    <div className="center" data-testid="signed-out">
      <h1>klaude</h1>
      {refused ? <Problem error={problem} testId="sign-in-error" /> : null}
      {wasSignedIn ? (
        <p data-testid="signed-out-now">
          This page was signed out: the server no longer accepts its sign-in (<code>klaude web --rotate-token</code>{' '}
          does that to every page).
        </p>
      ) : null}
      <p>
        {wasSignedIn ? 'To sign in again, open' : 'Not signed in. Open'} a new link from <code>klaude web</code> on its
        machine — paste it here, in this tab. Each link signs in one browser, once.
      </p>
    </div>
  );
}

function Unreachable({ tries, retry }: { tries: number; retry: () => void }) {
  const wait = backoff(Math.max(0, tries - 1));
  useEffect(() => {
    const t = setTimeout(retry, wait);
    const stop = onWake(retry);
    return () => (clearTimeout(t), stop());
  }, [tries, wait, retry]);
  return (
    <div className="center" data-testid="unreachable">
      <h1>klaude</h1>
      <p>
        klaude web does not answer: it is stopped, or this device is offline. Start it with <code>klaude web</code> on
        its machine; this page tries again by itself.
      </p>
      <p className="muted" role="status">
        reconnecting… (next try in {Math.round(wait / 1000)} s)
      </p>
      <button onClick={retry}>Retry now</button>
    </div>
  );
}

/**
 * Following is not owning: Ctrl-C (SIGINT), SIGTERM and SIGHUP (what Claude's Bash tool sends
 * when a command times out or is cancelled) only stop the follower; the agents keep running.
 */
import { shortId } from '../core/ids.js';

const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

export interface Detacher {
  signal: AbortSignal;
  /** The signal that detached, once one did. */
  reason: string | null;
  /** Detach now for another reason (a timeout). */
  detach(reason: string): void;
  dispose(): void;
}

export function detachOnSignals(): Detacher {
  const ac = new AbortController();
  const d: Detacher = {
    signal: ac.signal,
    reason: null,
    detach: (reason) => {
      if (d.reason === null) d.reason = reason;
      ac.abort();
    },
    dispose: () => {
      for (const [s, h] of handlers) process.off(s, h);
    },
  };
  const handlers = SIGNALS.map((s) => {
    const h = (): void => d.detach(s);
    process.on(s, h);
    return [s, h] as const;
  });
  return d;
}

/** How to get back to agents left running. */
export function detachedHint(sessions: readonly { id: string }[]): string {
  const ids = sessions.map((s) => shortId(s.id));
  const follow = ids.length === 1 ? `klaude logs -f ${ids[0]}` : ids.map((i) => `klaude logs -f ${i}`).join(', ');
  return `follow: ${follow} · wait: klaude wait ${ids.join(' ')}`;
}

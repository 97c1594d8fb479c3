/**
 * The page's link to the server: whether it answers (live, down, or this page signed out) and the
 * one event stream of the live state. A stream refused with 401 (the token was rotated) or an
 * action answered "not signed in" signs the page out; a server that does not answer is retried
 * with backoff, and at once when the device comes back online or the page becomes visible.
 */
import { useEffect, useState, useSyncExternalStore } from 'react';
import type { WebState } from '../hub.js';

export type Link = 'connecting' | 'live' | 'down' | 'signed-out';

let link: Link = 'connecting';
const listeners = new Set<() => void>();

export function setLink(next: Link): void {
  if (next === link) return;
  link = next;
  for (const l of listeners) l();
}

export const currentLink = (): Link => link;

function onLinkChange(l: () => void): () => void {
  listeners.add(l);
  return () => listeners.delete(l);
}

export function useLink(): Link {
  return useSyncExternalStore(onLinkChange, () => link);
}

/** The delay before the n-th retry: 1 s, 2 s, 4 s … at most 15 s. */
export const backoff = (attempt: number): number => Math.min(15_000, 1000 * 2 ** attempt);

/** Call `wake` when the device comes back online or the page becomes visible again. */
export function onWake(wake: () => void): () => void {
  const visible = (): void => {
    if (document.visibilityState === 'visible') wake();
  };
  window.addEventListener('online', wake);
  document.addEventListener('visibilitychange', visible);
  return () => {
    window.removeEventListener('online', wake);
    document.removeEventListener('visibilitychange', visible);
  };
}

/** Why the stream was refused: this page is signed out (401), or the server is not there / not well. */
async function probe(): Promise<'signed-out' | 'down'> {
  try {
    const r = await fetch('/api/me', { credentials: 'same-origin' });
    return r.status === 401 ? 'signed-out' : 'down';
  } catch {
    return 'down';
  }
}

export function useLiveState(enabled: boolean): WebState | null {
  const [state, setState] = useState<WebState | null>(null);
  useEffect(() => {
    if (!enabled) return;
    let es: EventSource | null = null;
    let timer: ReturnType<typeof setTimeout> | undefined;
    let attempt = 0;
    let ended = false;
    const connect = (): void => {
      clearTimeout(timer);
      es?.close();
      const me = new EventSource('/api/events');
      es = me;
      me.addEventListener('state', (m) => setState(JSON.parse((m as MessageEvent<string>).data) as WebState));
      me.onopen = () => ((attempt = 0), setLink('live'));
      me.onerror = () => {
        // Still CONNECTING: the browser retries by itself (and sends Last-Event-ID).
        if (me.readyState !== EventSource.CLOSED) return setLink('down');
        // CLOSED: the server answered with an error status, which EventSource never retries.
        void probe().then((why) => {
          if (ended || es !== me) return;
          setLink(why);
          if (why === 'down') timer = setTimeout(connect, backoff(attempt++));
        });
      };
    };
    const stopWaking = onWake(() => {
      if (currentLink() === 'down') connect();
    });
    // A request got no answer while the stream looks open (a phone that lost its network
    // quietly): the stream is reopened, which either comes back live or shows the server down.
    const stopWatching = onLinkChange(() => {
      if (currentLink() === 'down' && es?.readyState === EventSource.OPEN) connect();
    });
    connect();
    return () => {
      ended = true;
      clearTimeout(timer);
      stopWaking();
      stopWatching();
      es?.close();
    };
  }, [enabled]);
  return state;
}

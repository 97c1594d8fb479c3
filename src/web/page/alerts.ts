/**
 * The tab title's count and a notification when a session starts needing the person: it names
 * the project, says "failed" for a failure, and a click brings the page forward with that session
 * open.
 */
import { useEffect, useRef, useState } from 'react';
import type { WebSession, WebState } from '../hub.js';
import { label, short, typeName } from './display.js';

const hasNotifications = (): boolean => typeof Notification !== 'undefined';

/** The permission, updated as soon as the person answers (so "Notify me" goes at once). */
export function useNotifyPermission(): { permission: NotificationPermission | null; ask: () => void } {
  const [permission, setPermission] = useState(hasNotifications() ? Notification.permission : null);
  const ask = (): void => void Notification.requestPermission().then(setPermission);
  return { permission, ask };
}

const keyOf = (s: WebSession): string => `${s.id}:${s.approvals[0]?.id ?? s.status}`;

function projectName(state: WebState, s: WebSession): string {
  const root = state.projects.find((p) => p.id === s.projectId)?.root ?? '';
  return root.split(/[\\/]/).filter(Boolean).pop() ?? root;
}

function message(state: WebState, s: WebSession): { title: string; body: string } {
  const who = `${projectName(state, s)} · ${typeName(s)} ${short(s.id)}`;
  const ask = s.approvals[0];
  if (ask) return { title: `${who} needs you: ${ask.toolName}`, body: ask.summary };
  if (s.status === 'failed') return { title: `${who} failed`, body: s.error ?? label(s) };
  return { title: `${who} needs you: waiting for your answer`, body: label(s) };
}

/**
 * The page's own notification, whose click focuses the page and opens the session; where the
 * browser refuses that (Android: "use ServiceWorkerRegistration.showNotification"), the service
 * worker's, whose click (sw.js) does the same.
 */
async function show(title: string, body: string, tag: string, id: string, open: (id: string) => void): Promise<void> {
  let n: Notification;
  try {
    n = new Notification(title, { body, tag });
  } catch {
    const reg = await navigator.serviceWorker?.getRegistration();
    return reg?.showNotification(title, { body, tag, data: { session: id } });
  }
  n.onclick = () => {
    window.focus();
    open(id);
    n.close();
  };
}

export function useAlerts(needs: WebSession[], state: WebState | null, open: (id: string) => void): void {
  const seen = useRef<Set<string> | null>(null);
  const opener = useRef(open);
  opener.current = open;
  useEffect(() => {
    // A click on a notification shown by the service worker: it focused this page and names the session.
    const onMessage = (e: MessageEvent<{ open?: string }>): void => {
      if (typeof e.data?.open === 'string') opener.current(e.data.open);
    };
    navigator.serviceWorker?.addEventListener('message', onMessage);
    return () => navigator.serviceWorker?.removeEventListener('message', onMessage);
  }, []);
  useEffect(() => {
    // What already needed the person when the page opened is listed, not announced.
    if (!state) return;
    document.title = needs.length ? `(${needs.length}) klaude` : 'klaude';
    if (seen.current && hasNotifications() && Notification.permission === 'granted') {
      for (const s of needs) {
        if (seen.current.has(keyOf(s))) continue;
        const { title, body } = message(state, s);
        void show(title, body, keyOf(s), s.id, (id) => opener.current(id)).catch(() => undefined);
      }
    }
    seen.current = new Set(needs.map(keyOf));
  }, [needs, state]);
}

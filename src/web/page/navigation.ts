/**
 * Which session is open, kept in the URL (`#s=<id>`) so a reload keeps it, and in the browser's
 * history so Back (the phone's back gesture) closes it and returns to the list instead of leaving
 * the app. Escape closes it too, unless a field or the terminal has the key.
 */
import { useCallback, useEffect, useRef, useState } from 'react';

const fromUrl = (): string | null => /(?:^#|&)s=([A-Za-z0-9_-]+)/.exec(location.hash)?.[1] ?? null;

/** Escape belongs to what has focus when that is a field, a dialog or the terminal (claude reads it). */
function keyIsTaken(t: EventTarget | null): boolean {
  if (!(t instanceof Element)) return false;
  return !!t.closest('input, textarea, select, [contenteditable], .xterm, dialog');
}

export interface Selection {
  selected: string | null;
  open: (id: string) => void;
  close: () => void;
}

export function useSelection(): Selection {
  const [selected, setSelected] = useState<string | null>(fromUrl);
  // Whether the entry showing the open session is one this page pushed (then Back undoes it).
  const pushed = useRef(false);
  useEffect(() => {
    const sync = (): void => {
      pushed.current = false;
      setSelected(fromUrl());
    };
    window.addEventListener('popstate', sync);
    return () => window.removeEventListener('popstate', sync);
  }, []);
  const open = useCallback((id: string) => {
    setSelected(id);
    if (fromUrl() === id) return;
    // From the list: a new entry, so Back returns to it; from one session to another: the same entry.
    if (fromUrl() === null) {
      history.pushState(null, '', `#s=${id}`);
      pushed.current = true;
    } else history.replaceState(null, '', `#s=${id}`);
  }, []);
  const close = useCallback(() => {
    setSelected(null);
    if (fromUrl() === null) return;
    if (pushed.current) {
      pushed.current = false;
      history.back();
    } else history.replaceState(null, '', location.pathname);
  }, []);
  useEffect(() => {
    if (selected === null) return;
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape' || e.defaultPrevented || keyIsTaken(e.target)) return;
      close();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [selected, close]);
  return { selected, open, close };
}

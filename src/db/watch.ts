/**
 * Hearing of the DB changing without polling: a file notification on the DB's directory (any
 * writer touches the WAL; the directory, not the -wal file itself: SQLite deletes and recreates it)
 * calls `onWrite` at most once per DEBOUNCE_MS.
 *
 * One process may have several listeners (the supervisor's bell notices, its interrupt watch, the
 * dashboard's sessions feed): they share one directory watch and one debounce per DB file, so a
 * write wakes the process once. A listener that coalesces writes itself (`immediate`: the sessions
 * feed, once per frame) is told of every notification at once instead, without the debounce's delay.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

const DEBOUNCE_MS = 100;

interface Listener {
  onWrite: () => void;
  onError?: (err: unknown) => void;
  immediate: boolean;
  keepAlive: boolean;
}

interface Shared {
  watcher: FSWatcher;
  timer: NodeJS.Timeout | null;
  listeners: Set<Listener>;
}

export interface WatchDbOptions {
  /** Call `onWrite` on every notification of the DB or its WAL, undebounced (the listener coalesces). */
  immediate?: boolean;
  /**
   * Keep the process alive while this listener listens (`klaude watch`, which has nothing else to
   * wait on). By default the watch never holds a process open: its owner decides when it ends.
   */
  keepAlive?: boolean;
}

const watches = new Map<string, Shared>();

function open(file: string): Shared {
  const names = new Set([path.basename(file), `${path.basename(file)}-wal`]);
  const state: Omit<Shared, 'watcher'> = { timer: null, listeners: new Set() };
  const watcher = watch(path.dirname(file), { persistent: false }, (_t, name) => {
    if (name !== null && !names.has(String(name))) return;
    const all = [...state.listeners];
    for (const l of all) if (l.immediate) l.onWrite();
    if (state.timer || !all.some((l) => !l.immediate)) return;
    state.timer = setTimeout(() => {
      state.timer = null;
      for (const l of [...state.listeners]) if (!l.immediate) l.onWrite();
    }, DEBOUNCE_MS);
  });
  watcher.on('error', (err) => {
    for (const l of [...state.listeners]) l.onError?.(err);
  });
  return Object.assign(state, { watcher });
}

/** The watch holds the process open while any of its listeners asks to. */
function holdProcess(s: Shared): void {
  if ([...s.listeners].some((l) => l.keepAlive)) s.watcher.ref();
  else s.watcher.unref();
}

/** Start watching the DB at `file`; returns the stop function. Nothing is watched for ':memory:'. */
export function watchDbWrites(
  file: string,
  onWrite: () => void,
  onError?: (err: unknown) => void,
  opts: WatchDbOptions = {},
): () => void {
  if (file === ':memory:' || file === '') return () => undefined;
  let s = watches.get(file);
  if (!s) {
    try {
      s = open(file);
    } catch (err) {
      onError?.(err);
      return () => undefined;
    }
    watches.set(file, s);
  }
  const shared = s;
  const listener: Listener = {
    onWrite,
    immediate: opts.immediate ?? false,
    keepAlive: opts.keepAlive ?? false,
    ...(onError ? { onError } : {}),
  };
  shared.listeners.add(listener);
  holdProcess(shared);
  return () => {
    if (!shared.listeners.delete(listener)) return;
    holdProcess(shared);
    if (shared.listeners.size > 0) return;
    if (shared.timer) clearTimeout(shared.timer);
    shared.watcher.close();
    if (watches.get(file) === shared) watches.delete(file);
  };
}

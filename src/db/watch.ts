/**
 * Hearing of the DB changing without polling: a file notification on the DB's directory (any
 * writer touches the WAL) calls `onWrite` at most once per DEBOUNCE_MS.
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';

const DEBOUNCE_MS = 100;

/** Start watching the DB at `file`; returns the stop function. Nothing is watched for ':memory:'. */
export function watchDbWrites(file: string, onWrite: () => void, onError?: (err: unknown) => void): () => void {
  if (file === ':memory:' || file === '') return () => undefined;
  let timer: NodeJS.Timeout | null = null;
  const names = new Set([path.basename(file), `${path.basename(file)}-wal`]);
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(path.dirname(file), { persistent: false }, (_t, name) => {
      if (timer || (name !== null && !names.has(String(name)))) return;
      timer = setTimeout(() => {
        timer = null;
        onWrite();
      }, DEBOUNCE_MS);
    });
    watcher.on('error', (err) => onError?.(err));
  } catch (err) {
    onError?.(err);
  }
  return () => {
    if (timer) clearTimeout(timer);
    watcher?.close();
  };
}

/**
 * What the supervisor's terminal notices use to hear of the DB changing, and how they ring.
 *
 * No polling: a file notification on the DB's directory (any writer touches the WAL) calls
 * `onWrite` at most once per DEBOUNCE_MS. Claude's TUI owns the screen, so a notice is never text:
 * the terminal bell and/or an OSC 9 desktop notification (config `ui.notify`).
 */
import { watch, type FSWatcher } from 'node:fs';
import path from 'node:path';
import type { NotifyMode } from '../config/schema.js';
import type { Db } from '../db/client.js';
import { BEL, osc9 } from '../lib/escapes.js';

const DEBOUNCE_MS = 100;

/** Start watching; returns the stop function. Nothing is watched for an in-memory DB. */
export function watchDbWrites(db: Db, onWrite: () => void, onError?: (err: unknown) => void): () => void {
  if (db.path === ':memory:') return () => undefined;
  let timer: NodeJS.Timeout | null = null;
  const names = new Set([path.basename(db.path), `${path.basename(db.path)}-wal`]);
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(path.dirname(db.path), { persistent: false }, (_t, name) => {
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

/** The bytes of one notice per `ui.notify` ('' for none); the OSC 9 text is cut to 200 characters. */
export function noticeSequence(mode: NotifyMode, text: string): string {
  let seq = '';
  if (mode === 'bell' || mode === 'both') seq += BEL;
  if (mode === 'osc9' || mode === 'both') seq += osc9(text.slice(0, 200));
  return seq;
}

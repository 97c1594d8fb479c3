/**
 * Noticing this process's own death the moment it happens, SIGKILL included, with nobody looking:
 * an EOF watcher (eof-watcher.ts) that, once this process is gone, execs the given command — for
 * an agent runtime `klaude __reap <session>`, which records the run, recovers it and hands its run
 * slot to the queue. A process that ends normally disposes of its notice first (nothing runs).
 */
import { startEofWatcher, type EofWatcher, type EofWatcherOptions } from './eof-watcher.js';

// The arguments after the script's name are the command to run once the pipe reads EOF.
const SCRIPT = `
while read -r _; do :; done
exec "$@"
`;

export type DeathNotice = EofWatcher;

/** Run `argv` when this process dies, however it dies, unless disposed of first. */
export function onOwnDeath(argv: readonly string[], opts: EofWatcherOptions = {}): DeathNotice {
  return startEofWatcher(SCRIPT, 'klaude-death-notice', argv, opts);
}

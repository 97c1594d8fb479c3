/**
 * `klaude __notify '<json>'`: tells one event of an interactive session outside the terminal
 * (config notify.*). Started detached by the hook that recorded the event (hooks/notify-spawn.ts):
 * the hook stays fast (no config, no notifier), and no long-lived klaude process has to watch the
 * DB for it — a `klaude talk` session in the PTY server, or a foreground claude whose supervisor is
 * busy, is told the same way, in any project. "Once" is notify()'s claim on the event's key. It ends
 * by itself: the notifiers are bounded (notify.ts), and past that bound it exits anyway.
 */
import { loadConfig } from '../config/config.js';
import { klaudeHome, logFilePath } from '../config/paths.js';
import { NOTIFY_KINDS } from '../core/notify-event.js';
import { openDb } from '../db/client.js';
import { createFileLogger } from '../lib/logger.js';
import { notificationsSent, notify, type NotifyEvent } from './notify.js';

/** The notifiers' own bound (5 s) plus a second: past it the process goes, whatever is in flight. */
const HARD_EXIT_MS = 6_000;

function parseEvent(arg: string | undefined): NotifyEvent | null {
  try {
    const e = JSON.parse(arg ?? '') as Partial<NotifyEvent>;
    if (typeof e.sessionId !== 'string' || typeof e.eventKey !== 'string') return null;
    if (!NOTIFY_KINDS.includes(e.kind as never)) return null;
    const opt = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
    return {
      kind: e.kind!,
      sessionId: e.sessionId,
      eventKey: e.eventKey,
      detail: opt(e.detail),
      tool: opt(e.tool),
      summary: opt(e.summary),
    };
  } catch {
    return null;
  }
}

export async function notifyMain(args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  setTimeout(() => process.exit(0), HARD_EXIT_MS).unref();
  const home = klaudeHome(env);
  const log = createFileLogger(logFilePath(home), 'notify', env);
  const event = parseEvent(args[0]);
  if (!event) {
    log.warn('__notify: not an event', { arg: args[0]?.slice(0, 200) });
    return 2;
  }
  try {
    const { config } = loadConfig(home);
    const db = openDb(home);
    try {
      notify({ db, config, log, env }, event);
    } finally {
      db.close();
    }
    await notificationsSent();
  } catch (err) {
    log.warn('notifying failed', { err, event: event.eventKey });
  }
  return 0;
}

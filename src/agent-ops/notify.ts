/**
 * Telling the person outside the terminal (config notify.*): a session needs them, an agent is
 * done, an agent failed. Called by the process that records the event (the runtime's approval
 * desk and run record), in any project: no dashboard has to be open. Each event is told once
 * (db/repos/notifications.ts claims it); every notifier's failure is logged and never thrown.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/schema.js';
import { shortId } from '../core/ids.js';
import { shownTitle } from '../core/session-title.js';
import type { HasSqlite } from '../db/connection.js';
import { claimNotification, notifySubject } from '../db/repos/notifications.js';
import type { NotifyEvent, NotifyKind } from '../core/notify-event.js';
import type { Logger } from '../lib/logger.js';

export interface NotifyDeps {
  db: HasSqlite;
  config: Pick<Config, 'notify.desktop' | 'notify.command' | 'notify.url'>;
  log: Logger;
  env: NodeJS.ProcessEnv;
}

export type { NotifyEvent };

/** The JSON a command (stdin) and a webhook (body) receive. */
export interface NotifyPayload {
  event: NotifyKind;
  title: string;
  text: string;
  sessionId: string;
  shortId: string;
  type: string;
  project: string;
  projectRoot: string;
  tool: string | null;
  summary: string | null;
  at: number;
}

/** How long a webhook may take, and how long a process leaving waits for the ones in flight. */
const SEND_TIMEOUT_MS = 5000;
const inFlight = new Set<Promise<void>>();

const HEADLINES: Record<NotifyKind, string> = {
  needs_you: 'needs you',
  done: 'done',
  failed: 'failed',
  over_budget: 'over budget',
};

/** Tell the event once (nothing when no notifier is configured or another process told it). */
export function notify(d: NotifyDeps, e: NotifyEvent): void {
  try {
    const desktop = d.config['notify.desktop'] ? desktopCommand(d.env) : null;
    const command = d.config['notify.command'];
    const url = d.config['notify.url'];
    if (!desktop && !command && !url) return;
    const subject = notifySubject(d.db, e.sessionId);
    if (!subject || !claimNotification(d.db, e)) return;
    const project = path.basename(subject.projectRoot);
    const who = `${subject.type === 'tui' ? 'claude' : subject.type} ${shortId(e.sessionId)}`;
    const title = `klaude: ${who} ${HEADLINES[e.kind]}`;
    const named = shownTitle(subject).replace(/\s+/g, ' ').trim().slice(0, 80);
    const text = [project, named, e.detail].filter(Boolean).join(' · ');
    const payload: NotifyPayload = {
      event: e.kind,
      title,
      text,
      sessionId: e.sessionId,
      shortId: shortId(e.sessionId),
      type: subject.type,
      project,
      projectRoot: subject.projectRoot,
      tool: e.tool ?? null,
      summary: e.summary ?? null,
      at: Date.now(),
    };
    if (desktop) track(d, 'desktop', runCommand(d, desktop.file, desktop.args(title, text), null, {}));
    if (command) track(d, 'notify.command', runCommand(d, '/bin/sh', ['-c', command], payload, envOf(payload)));
    if (url) track(d, 'notify.url', post(url, payload));
  } catch (err) {
    d.log.warn('notifying failed', { err, event: e.eventKey });
  }
}

/** Waits (at most `ms`) for notifications still being sent: a process calls it before it exits. */
export async function notificationsSent(ms = SEND_TIMEOUT_MS): Promise<void> {
  if (inFlight.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)));
  await Promise.race([Promise.allSettled([...inFlight]), late]);
  clearTimeout(timer);
}

function track(d: NotifyDeps, what: string, p: Promise<void>): void {
  const settled = p.catch((err: unknown) => d.log.warn(`notifier ${what} failed`, { err }));
  inFlight.add(settled);
  void settled.finally(() => inFlight.delete(settled));
}

const envOf = (p: NotifyPayload): Record<string, string> => ({
  KLAUDE_NOTIFY_EVENT: p.event,
  KLAUDE_NOTIFY_TITLE: p.title,
  KLAUDE_NOTIFY_TEXT: p.text,
  KLAUDE_NOTIFY_SESSION: p.sessionId,
  KLAUDE_NOTIFY_PROJECT: p.projectRoot,
});

/** The platform's notifier found on PATH: notify-send, else osascript on macOS; null when none. */
function desktopCommand(
  env: NodeJS.ProcessEnv,
): { file: string; args: (title: string, text: string) => string[] } | null {
  const send = onPath('notify-send', env);
  if (send) return { file: send, args: (title, text) => ['--app-name=klaude', title, text] };
  const osa = process.platform === 'darwin' ? onPath('osascript', env) : null;
  if (osa)
    return {
      file: osa,
      args: (title, text) => ['-e', `display notification ${JSON.stringify(text)} with title ${JSON.stringify(title)}`],
    };
  return null;
}

function onPath(name: string, env: NodeJS.ProcessEnv): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const file = path.join(dir, name);
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not in this directory
    }
  }
  return null;
}

/** Run a notifier to its end (bounded); its output is ignored, a non-zero exit is a failure. */
function runCommand(
  d: NotifyDeps,
  file: string,
  args: string[],
  stdin: NotifyPayload | null,
  extraEnv: Record<string, string>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env: { ...d.env, ...extraEnv }, stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    const timer = setTimeout(() => child.kill('SIGKILL'), SEND_TIMEOUT_MS);
    child.stderr.on('data', (b: Buffer) => (stderr = (stderr + b.toString()).slice(-500)));
    child.stdin.on('error', () => undefined); // a notifier that does not read its stdin
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(file)} exited with ${signal ?? `code ${code}`}: ${stderr.trim()}`));
    });
    child.stdin.end(stdin ? `${JSON.stringify(stdin)}\n` : '');
  });
}

async function post(url: string, payload: NotifyPayload): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(payload),
    signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
  });
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
}

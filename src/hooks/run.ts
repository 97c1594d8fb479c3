/**
 * `klaude hook <event>`: run by Claude Code (injected settings), payload JSON on stdin.
 * Outside klaude (no KLAUDE_SESSION_ID) it is a silent no-op. A payload it cannot read or parse
 * is logged and exits 1 (a non-blocking error to Claude); any other failure logs and exits 0, so
 * a broken klaude can never block Claude. Claude waits on this after every
 * tool call: it loads no drizzle (db/fast.ts) and reads stdin without a stream.
 */
import { fstatSync, readSync } from 'node:fs';
import path from 'node:path';
import { klaudeHome, logFilePath, projectDir } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import type { HookOutcome, HookPayload } from './handle.js';
import { eventFromWord, HOOK_EVENTS, hookWord, INTERACTIVE_ARG } from './settings.js';

function isCharDevice(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true; // no stdin at all
  }
}

/**
 * Read fd 0 to EOF with plain blocking reads: a stream costs the hook several ms to set up, and
 * fs.read's callback form starts libuv's four threads (about 1 ms of CPU), where the hook has
 * nothing else to do while it waits. No timer of our own: under CPU starvation a timer can fire
 * before a payload already written is read, and recording a half-read payload loses the
 * Claude→klaude link silently. Claude's own hook timeout (settings.ts) bounds the wait: it kills
 * a hook that outlives it.
 */
function readStdin(): Promise<string | null> {
  // Not process.stdin.isTTY (touching process.stdin builds a stream) nor tty.isatty (loads
  // net): a terminal, like /dev/null, is a character device, and holds no payload.
  if (isCharDevice()) return Promise.resolve(null);
  const chunks: Buffer[] = [];
  const buf = Buffer.allocUnsafe(64 * 1024);
  for (;;) {
    let n: number;
    try {
      n = readSync(0, buf, 0, buf.length, null);
    } catch (err) {
      // A non-blocking stdin (EAGAIN) is read through the stream instead.
      if ((err as NodeJS.ErrnoException).code === 'EAGAIN') return fromStream(chunks);
      return Promise.resolve(null);
    }
    // toString() without an encoding is UTF-8 without node's encoding lookup (compiled on first use).
    if (n === 0) return Promise.resolve(Buffer.concat(chunks).toString());
    chunks.push(Buffer.from(buf.subarray(0, n)));
  }
}

/** The rest of stdin through node's stream (after `chunks`, read already). */
function fromStream(chunks: Buffer[]): Promise<string | null> {
  return new Promise((resolve) => {
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    process.stdin.once('error', () => resolve(null));
  });
}

/** The payload as a JSON object, or why it is not one. */
function parsePayload(text: string | null): HookPayload | string {
  if (text === null) return 'no readable payload on stdin';
  if (text.trim() === '') return 'empty payload on stdin';
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch (e) {
    return `payload is not JSON (${(e as Error).message})`;
  }
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return 'payload is not a JSON object';
  return payload as HookPayload;
}

/** Exit code for a payload klaude could not use: non-blocking for Claude (2 would block the action). */
export const HOOK_BAD_PAYLOAD_EXIT = 1;

/** KLAUDE_SWITCHED_FROM (`<session>:<label>`), KLAUDE_SWITCH_NOTICE (`<session>:<line>`): about this session only. */
function forSession(value: string | undefined, sessionId: string): string | undefined {
  return value?.startsWith(`${sessionId}:`) ? value.slice(sessionId.length + 1) : undefined;
}

export async function runHook(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const word = args[0];
  const event = word ? eventFromWord(word) : undefined;
  if (!event) {
    throw new KlaudeError('E_USAGE', word ? `unknown hook event '${word}'` : 'missing hook event', {
      hint: `one of: ${HOOK_EVENTS.map(hookWord).join(', ')}`,
    });
  }
  const sessionId = env.KLAUDE_SESSION_ID;
  if (!sessionId) return 0; // outside klaude: nothing to record, nothing to read
  const text = await readStdin();
  const home = klaudeHome(env);
  const logError = async (msg: string, data: Record<string, unknown>): Promise<void> => {
    const { createFileLogger } = await import('../lib/logger.js');
    createFileLogger(logFilePath(home), 'hook', env).error(msg, { sessionId, ...data });
  };
  const payload = parsePayload(text);
  if (typeof payload === 'string') {
    // Never recorded as `{}`: an empty SessionStart would lose the Claude→klaude link silently.
    await logError(`hook ${event} failed: ${payload}`, { stdin: text?.slice(0, 200) ?? null });
    process.stderr.write(`klaude: hook ${hookWord(event)}: ${payload} [E_BAD_REQUEST]\n`);
    return HOOK_BAD_PAYLOAD_EXIT;
  }
  if (event === 'Stop' && typeof payload.transcript_path === 'string') await replyInTranscript(payload.transcript_path);
  try {
    const [{ openFastDb }, { handleHook }] = await Promise.all([import('../db/fast.js'), import('./handle.js')]);
    // The fast open is null only when the DB is missing or behind: then create/migrate it.
    const db = openFastDb(home) ?? (await import('../db/client.js')).openDb(home);
    let notice: HookOutcome['notice'];
    try {
      const usageCacheDir = path.join(projectDir(home, env.KLAUDE_PROJECT_HASH || 'unknown'), 'usage');
      const out = handleHook(db, sessionId, event, payload, {
        switchedFrom: forSession(env.KLAUDE_SWITCHED_FROM, sessionId),
        switchNotice: forSession(env.KLAUDE_SWITCH_NOTICE, sessionId),
        usageCacheDir,
        interactive: args.includes(INTERACTIVE_ARG),
      });
      if (out.stdout) process.stdout.write(out.stdout);
      notice = out.notice;
    } finally {
      db.close();
    }
    if (notice) await (await import('./notify-spawn.js')).spawnNotifier(notice, env);
  } catch (err) {
    await logError(`hook ${event} failed`, { err });
  }
  return 0;
}

/**
 * Wait (at most REPLY_WAIT_MS, before any DB lock is taken) until the turn's reply is in the
 * transcript: claude 2.1.197 may write it up to about a second after the Stop hook starts (seen in
 * e2e runs), and the turn's usage is summed from it.
 */
const REPLY_WAIT_MS = 2000;
async function replyInTranscript(file: string): Promise<void> {
  const { replyWritten } = await import('../claude/transcript-usage.js');
  const until = Date.now() + REPLY_WAIT_MS;
  while (!replyWritten(file) && Date.now() < until) await new Promise((r) => setTimeout(r, 25));
}

/**
 * `klaude hook <event>`: run by Claude Code (injected settings), payload JSON on stdin.
 * Outside klaude (no KLAUDE_SESSION_ID) it is a silent no-op; on any failure it logs and
 * exits 0, so a broken klaude can never block Claude. Claude waits on this after every
 * tool call: it loads no drizzle (db/fast.ts) and reads stdin without a stream.
 */
import { fstatSync, read } from 'node:fs';
import path from 'node:path';
import { klaudeHome, logFilePath, projectDir } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import type { HookPayload } from './handle.js';
import { eventFromWord, HOOK_EVENTS, hookWord } from './settings.js';

/** Claude closes the hook's stdin after the payload; don't wait forever if it doesn't. */
const STDIN_LIMIT_MS = 2000;

interface Stdin {
  text: string;
  /** False when the limit hit first: a read is still pending and keeps node alive. */
  complete: boolean;
}

function isCharDevice(): boolean {
  try {
    return fstatSync(0).isCharacterDevice();
  } catch {
    return true; // no stdin at all
  }
}

/** Read fd 0 to EOF with plain reads (a stream costs the hook several ms to set up). */
function readStdin(): Promise<Stdin> {
  return new Promise((resolve) => {
    // Not process.stdin.isTTY (touching process.stdin builds a stream) nor tty.isatty (loads
    // net): a terminal, like /dev/null, is a character device, and holds no payload.
    if (isCharDevice()) return resolve({ text: '', complete: true });
    const chunks: Buffer[] = [];
    const buf = Buffer.allocUnsafe(64 * 1024);
    let settled = false;
    const done = (complete: boolean): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ text: Buffer.concat(chunks).toString('utf8'), complete });
    };
    const timer = setTimeout(() => done(false), STDIN_LIMIT_MS);
    const step = (): void =>
      read(0, buf, 0, buf.length, null, (err, n) => {
        if (err && (err as NodeJS.ErrnoException).code === 'EAGAIN') return fromStream();
        if (err || n === 0) return done(true);
        chunks.push(Buffer.from(buf.subarray(0, n)));
        step();
      });
    // A non-blocking stdin (EAGAIN) is read through the stream instead.
    const fromStream = (): void => {
      process.stdin.on('data', (c: Buffer) => chunks.push(c));
      process.stdin.once('end', () => done(true));
      process.stdin.once('error', () => done(true));
    };
    step();
  });
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
  const stdin = await readStdin();
  // A read still pending would keep the process (and Claude, waiting on it) alive.
  if (!stdin.complete) setImmediate(() => process.exit(0));
  if (!sessionId) return 0;
  const home = klaudeHome(env);
  try {
    const payload: unknown = stdin.text.trim() ? JSON.parse(stdin.text) : {};
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      throw new KlaudeError('E_BAD_REQUEST', 'hook payload is not a JSON object');
    }
    const [{ openFastDb }, { handleHook }] = await Promise.all([import('../db/fast.js'), import('./handle.js')]);
    // The fast open is null only when the DB is missing or behind: then create/migrate it.
    const db = openFastDb(home) ?? (await import('../db/client.js')).openDb(home);
    try {
      const usageCacheDir = path.join(projectDir(home, env.KLAUDE_PROJECT_HASH || 'unknown'), 'usage');
      const out = handleHook(db, sessionId, event, payload as HookPayload, { usageCacheDir });
      if (out.stdout) process.stdout.write(out.stdout);
    } finally {
      db.close();
    }
  } catch (err) {
    const { createFileLogger } = await import('../lib/logger.js');
    createFileLogger(logFilePath(home), 'hook', env).error(`hook ${event} failed`, { err, sessionId, stdin: stdin.text.slice(0, 200) });
  }
  return 0;
}

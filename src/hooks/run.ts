/**
 * `klaude hook <event>`: run by Claude Code (injected settings), payload JSON on stdin.
 * Outside klaude (no KLAUDE_SESSION_ID) it is a silent no-op; on any failure it logs and
 * exits 0, so a broken klaude can never block Claude.
 */
import { klaudeHome } from '../config/paths.js';
import { KlaudeError } from '../lib/errors.js';
import { eventFromWord, HOOK_EVENTS } from './settings.js';

const STDIN_LIMIT_MS = 2000;

function readStdin(): Promise<string> {
  return new Promise((resolve) => {
    if (process.stdin.isTTY) return resolve('');
    const chunks: Buffer[] = [];
    const done = (): void => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const timer = setTimeout(done, STDIN_LIMIT_MS);
    process.stdin.on('data', (c: Buffer) => chunks.push(c));
    process.stdin.once('end', done);
    process.stdin.once('error', done);
  });
}

export async function runHook(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const word = args[0];
  const event = word ? eventFromWord(word) : undefined;
  if (!event) {
    throw new KlaudeError('E_USAGE', word ? `unknown hook event '${word}'` : 'missing hook event', {
      hint: `one of: ${HOOK_EVENTS.map((e) => e.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()).join(', ')}`,
    });
  }
  const sessionId = env.KLAUDE_SESSION_ID;
  const text = await readStdin();
  if (!sessionId) return 0;
  const home = klaudeHome(env);
  try {
    const payload = text.trim() ? (JSON.parse(text) as Record<string, unknown>) : {};
    const [{ openDb }, { handleHook }] = await Promise.all([import('../db/client.js'), import('./handle.js')]);
    const db = openDb(home);
    try {
      const out = handleHook(db, sessionId, event, payload);
      if (out.stdout) process.stdout.write(out.stdout);
    } finally {
      db.close();
    }
  } catch (err) {
    const { createFileLogger } = await import('../lib/logger.js');
    createFileLogger(home, 'hook', env).error(`hook ${event} failed`, { err, sessionId });
  }
  return 0;
}

/**
 * `klaude __ptyd`: the user's PTY server (server.ts), started detached by pty/launch.ts when no server
 * answers on `<runDir>/ptyd-<version>.sock`. Prints one line on stdout for its starter ({ok, pid} once it
 * listens; {error} with E_PTYD_RUNNING when another server already listens, or a real error), then
 * serves until its last session ended and it was idle a while, or until SIGTERM/SIGINT (which stop
 * every hosted CLI first). SIGHUP is ignored (no terminal to lose). One log for all sessions:
 * klaude's log file, component `ptyd`, each session's lines tagged with its short id.
 */
import { writeSync } from 'node:fs';
import { moduleLoadError } from '../config/install.js';
import { klaudeHome, logFilePath } from '../config/paths.js';
import { openFastDb, type FastDb } from '../db/fast.js';
import { isKlaudeError, KlaudeError } from '../lib/errors.js';
import { createFileLogger } from '../lib/logger.js';
import { ptyServerSocketPath, RUNNING_CODE, type WireErr } from './protocol.js';

function report(r: { ok: true; pid: number } | { ok: false; error: WireErr }): void {
  try {
    writeSync(1, `${JSON.stringify(r)}\n`);
  } catch {
    /* the starter went away: nothing to tell */
  }
}

export async function ptyServerMain(env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const home = klaudeHome(env);
  const log = createFileLogger(logFilePath(home), 'ptyd', env);
  // Nothing after the ready line may write to stdout (the starter has stopped reading).
  process.stdout.on('error', () => undefined);
  let db: Pick<FastDb, 'sqlite' | 'close'> | null = null;
  try {
    // No drizzle here (it would stay loaded for the server's life): the starter has opened and
    // migrated the DB already; only an unusual start (DB missing or behind) loads the full client.
    db = openFastDb(home) ?? (await import('../db/client.js')).openDb(home);
    const socketPath = ptyServerSocketPath(home, env);
    // The server's code loads node-pty's native addon: a failed build is told to the starter, with its repair.
    const { PtyServer } = await import('./server.js').catch((e: unknown) => {
      throw /node-pty|pty\.node/.test(String(e)) ? moduleLoadError('node-pty', e) : e;
    });
    const server = new PtyServer({ home, socketPath, db, log });
    if ((await server.listen()) === 'running') {
      log.info('another PTY server already listens; leaving it the sessions', { socket: socketPath });
      report({ ok: false, error: { code: RUNNING_CODE, message: 'a PTY server already runs' } });
      return 0;
    }
    log.info('PTY server started', { socket: socketPath });
    report({ ok: true, pid: process.pid });
    const stop = (): void => server.shutdown();
    process.on('SIGTERM', stop);
    process.on('SIGINT', stop);
    process.on('SIGHUP', () => undefined);
    await server.closed;
    log.info('PTY server exited');
    // Nothing should be left to keep the process alive; if something is, don't linger for it.
    setTimeout(() => process.exit(0), 2000).unref();
    return 0;
  } catch (e) {
    log.error('PTY server failed', { err: e });
    const err = isKlaudeError(e) ? e : new KlaudeError('E_INTERNAL', (e as Error)?.message ?? String(e));
    report({ ok: false, error: { code: err.code, message: err.message, ...(err.hint ? { hint: err.hint } : {}) } });
    return 1;
  } finally {
    db?.close();
  }
}

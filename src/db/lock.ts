/**
 * The cross-process migration lock: `<home>/.migrate.lock`, created with O_EXCL and holding the
 * owner's pid. A lock whose pid is dead (or, when the pid was never written, older than a few
 * seconds) is stale and is broken. Waiters retry with short jittered backoff, up to 15 s → E_LOCK.
 * Only taken when the DB is behind, so normal opens never touch it.
 */
import { closeSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { KlaudeError } from '../lib/errors.js';

export const LOCK_FILE = '.migrate.lock';
export const LOCK_TIMEOUT_MS = 15_000;
/** A lock file without a readable pid (owner died between open and write) is stale after this. */
const EMPTY_LOCK_STALE_MS = 5_000;

const sleepCell = new Int32Array(new SharedArrayBuffer(4));
export function sleepSync(ms: number): void {
  Atomics.wait(sleepCell, 0, 0, ms);
}

export interface LockOptions {
  timeoutMs?: number;
}

/** Run `fn` holding `<home>/.migrate.lock`; always released, also when `fn` throws. */
export function withMigrateLock<T>(home: string, fn: () => T, opts: LockOptions = {}): T {
  const release = acquireLock(path.join(home, LOCK_FILE), opts.timeoutMs ?? LOCK_TIMEOUT_MS);
  try {
    return fn();
  } finally {
    release();
  }
}

export function acquireLock(lockPath: string, timeoutMs: number = LOCK_TIMEOUT_MS): () => void {
  const deadline = Date.now() + timeoutMs;
  let delay = 5;
  for (;;) {
    if (tryCreate(lockPath)) return () => release(lockPath);
    if (breakIfStale(lockPath)) continue;
    if (Date.now() >= deadline) {
      const owner = readOwner(lockPath)?.pid;
      throw new KlaudeError('E_LOCK', `timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${lockPath}`, {
        hint: `another klaude (pid ${owner ?? '?'}) is migrating the database; if none is running, delete that file`,
        details: { lockPath, ownerPid: owner },
      });
    }
    sleepSync(delay + Math.random() * delay);
    delay = Math.min(delay * 2, 200);
  }
}

function tryCreate(lockPath: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, 'wx', 0o600);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new KlaudeError('E_LOCK', `cannot create ${lockPath}: ${(e as Error).message}`, { cause: e });
  }
  try {
    writeSync(fd, `${process.pid}\n`);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Unlink only our own lock (a waiter may have judged it stale and replaced it). */
function release(lockPath: string): void {
  if (readOwner(lockPath)?.pid !== process.pid) return;
  try {
    unlinkSync(lockPath);
  } catch {
    // already gone
  }
}

interface Owner {
  pid: number | null;
  mtimeMs: number;
}

function readOwner(lockPath: string): Owner | null {
  try {
    const text = readFileSync(lockPath, 'utf8');
    const mtimeMs = statSync(lockPath).mtimeMs;
    const pid = Number.parseInt(text.trim(), 10);
    return { pid: Number.isInteger(pid) && pid > 0 ? pid : null, mtimeMs };
  } catch {
    return null;
  }
}

export function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function isStale(owner: Owner): boolean {
  if (owner.pid === null) return Date.now() - owner.mtimeMs > EMPTY_LOCK_STALE_MS;
  return !isAlive(owner.pid);
}

/**
 * Break a stale lock; true when the caller should retry at once. The lock is renamed aside (atomic,
 * so of several breakers only one moves it) and the moved file re-read: if it is not the stale one
 * we judged (someone broke it and re-took it in between), it is linked back.
 */
function breakIfStale(lockPath: string): boolean {
  const owner = readOwner(lockPath);
  if (owner === null) return true; // vanished: retry
  if (!isStale(owner)) return false;
  const aside = `${lockPath}.${process.pid}.stale`;
  try {
    renameSync(lockPath, aside);
  } catch {
    return true; // someone else moved it first
  }
  const moved = readOwner(aside);
  if (moved && moved.pid !== owner.pid) {
    try {
      linkSync(aside, lockPath); // give it back unless a third process already holds the path
    } catch {
      // lost: the owner will find its lock replaced and release() leaves the new one alone
    }
    unlinkQuiet(aside);
    return false;
  }
  unlinkQuiet(aside);
  return true;
}

function unlinkQuiet(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // ignore
  }
}

/**
 * The web server's secret: 256 random bits in `<home>/web/token` (0600), never put into any
 * process's environment nor printed: scripts send it as `Authorization: Bearer` (what that may
 * do is in app.ts). Pages sign in with one-time links instead (links.ts), each getting a session of
 * its own; `--rotate-token` writes a new token and ends every page's session and unused link.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { closeSync, openSync, readFileSync, renameSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { webDir } from '../ownership/web-record.js';

export const tokenPath = (home: string): string => path.join(webDir(home), 'token');

/** Write a new token (temp file + rename, 0600); the old one stops working. */
export function rotateToken(home: string): string {
  ensurePrivateDir(webDir(home));
  const token = randomBytes(32).toString('base64url');
  const tmp = `${tokenPath(home)}.${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, `${token}\n`);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, tokenPath(home));
  return token;
}

/** The token, made on first use. */
export function readOrCreateToken(home: string): string {
  try {
    const t = readFileSync(tokenPath(home), 'utf8').trim();
    if (t.length >= 43) return t;
  } catch {
    /* none yet */
  }
  return rotateToken(home);
}

/** Constant-time comparison of two strings of any length. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The token as the server knows it: re-read only when the file changed (a rotation). */
export class TokenKeeper {
  private token = '';
  private stamp = '';

  constructor(private readonly home: string) {
    this.current();
  }

  /** The current token (one stat per call; the file is read again only after it changed). */
  current(): string {
    let stamp = '';
    try {
      const st = statSync(tokenPath(this.home));
      stamp = `${st.ino}:${st.mtimeMs}:${st.size}`;
    } catch {
      /* removed: made again below */
    }
    if (stamp === '' || stamp !== this.stamp) {
      this.token = readOrCreateToken(this.home);
      this.stamp = stamp === '' ? this.stampNow() : stamp;
    }
    return this.token;
  }

  private stampNow(): string {
    const st = statSync(tokenPath(this.home));
    return `${st.ino}:${st.mtimeMs}:${st.size}`;
  }
}

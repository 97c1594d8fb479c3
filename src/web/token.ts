/**
 * The web server's secret: 256 random bits in `<home>/web/token` (0600), never put into any
 * process's environment. The person gets it once, in the URL `klaude web` prints (in the
 * fragment, which the browser never sends), and the page trades it for a cookie. The cookie's value
 * is derived from the token (HMAC), so `--rotate-token` logs every page out at once.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
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
  private cookie = '';
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
      this.cookie = createHmac('sha256', this.token).update('klaude-web-cookie').digest('base64url');
      this.stamp = stamp === '' ? this.stampNow() : stamp;
    }
    return this.token;
  }

  /** The value the session cookie must hold for the current token. */
  cookieValue(): string {
    this.current();
    return this.cookie;
  }

  private stampNow(): string {
    const st = statSync(tokenPath(this.home));
    return `${st.ino}:${st.mtimeMs}:${st.size}`;
  }
}

/**
 * One-time sign-in links. What `klaude web` prints is not the server's token but a link token
 * good for one sign-in: the page trades it for the session cookie (derived from the server's token,
 * token.ts) and it is spent. Each is a file `<home>/web/links/<sha256 of the token>` (0600, in a
 * 0700 directory; only the hash is on disk): redeeming unlinks it, so two pages racing with the
 * same link get one sign-in between them (the kernel's unlink decides). Unused links expire after
 * LINK_TTL_MS; `--rotate-token` removes them all.
 */
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readdirSync, rmSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { webDir } from '../ownership/web-record.js';

/** A printed link that is not opened within a day is no longer good. */
export const LINK_TTL_MS = 24 * 60 * 60 * 1000;

const linksDir = (home: string): string => path.join(webDir(home), 'links');
const fileOf = (home: string, token: string): string =>
  path.join(linksDir(home), createHash('sha256').update(token).digest('hex'));

/** A new link token (256 random bits), good for one sign-in. */
export function mintLink(home: string, now = Date.now()): string {
  ensurePrivateDir(linksDir(home));
  pruneLinks(home, now);
  const token = randomBytes(32).toString('base64url');
  closeSync(openSync(fileOf(home, token), 'wx', 0o600));
  return token;
}

/** Spend a link token: true once for a token minted here and not expired, false ever after. */
export function redeemLink(home: string, token: string, now = Date.now()): boolean {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return false;
  const file = fileOf(home, token);
  let born: number;
  try {
    born = statSync(file).mtimeMs;
    unlinkSync(file);
  } catch {
    return false;
  }
  return now - born <= LINK_TTL_MS;
}

/** Every unused link stops working (`--rotate-token`). */
export function dropLinks(home: string): void {
  rmSync(linksDir(home), { recursive: true, force: true });
}

function pruneLinks(home: string, now: number): void {
  for (const name of readdirSync(linksDir(home))) {
    const file = path.join(linksDir(home), name);
    try {
      if (now - statSync(file).mtimeMs > LINK_TTL_MS) unlinkSync(file);
    } catch {
      /* redeemed meanwhile */
    }
  }
}

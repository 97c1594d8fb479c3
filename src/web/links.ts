/**
 * One-time sign-in links. What `klaude web` prints is not the server's token but a link token
 * good for one sign-in: the page trades it for a session of its own (ownership/web-sessions.ts)
 * and it is spent. Each is a file `<home>/web/links/<sha256 of the token>` (0600, in a 0700
 * directory; only the hash is on disk) holding who made it (where `klaude web` ran, with its
 * environment and klaude: what the page's session then carries). Redeeming reads and unlinks it,
 * so two pages racing with the same link get one sign-in between them (the kernel's unlink
 * decides). Unused links expire after LINK_TTL_MS; `--rotate-token` removes them all.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { webDir } from '../ownership/web-record.js';
import { asLinkOwner, type LinkOwner } from '../ownership/web-sessions.js';

/** A printed link that is not opened within a day is no longer good. */
export const LINK_TTL_MS = 24 * 60 * 60 * 1000;

const linksDir = (home: string): string => path.join(webDir(home), 'links');
const fileOf = (home: string, token: string): string =>
  path.join(linksDir(home), createHash('sha256').update(token).digest('hex'));

/** A new link token (256 random bits), good for one sign-in, made by `owner`. */
export function mintLink(home: string, owner: LinkOwner, now = Date.now()): string {
  ensurePrivateDir(linksDir(home));
  pruneLinks(home, now);
  const token = randomBytes(32).toString('base64url');
  writeFileSync(fileOf(home, token), JSON.stringify(owner), { mode: 0o600, flag: 'wx' });
  return token;
}

/**
 * Spend a link token: who made it, once, for a token minted here and not expired; null ever
 * after (and for a link whose maker is not on record).
 */
export function redeemLink(home: string, token: string, now = Date.now()): LinkOwner | null {
  if (!/^[A-Za-z0-9_-]{43}$/.test(token)) return null;
  const file = fileOf(home, token);
  let born: number;
  let text: string;
  try {
    born = statSync(file).mtimeMs;
    text = readFileSync(file, 'utf8');
    unlinkSync(file);
  } catch {
    return null;
  }
  if (now - born > LINK_TTL_MS) return null;
  try {
    return asLinkOwner(JSON.parse(text));
  } catch {
    return null;
  }
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

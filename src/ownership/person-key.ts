/**
 * The person's places that answer permission requests — the dashboard (`klaude ui`) and the web
 * server — each hold a secret of their own while they run: 32 random bytes in
 * `<run>/keys/<holder>.key` (0600, in a 0700 directory; holder = the dashboard's instance id, or
 * `web`), removed when they exit. They send it with every answer. A runtime that cannot ask the
 * kernel who sent an answer (no /proc or no `ss`: macOS, the BSDs, a minimal container;
 * lib/socket-peer.ts) counts the answer as the person's only when it carries the secret of a
 * holder that runs (answerer.ts) — never on a pid the client states.
 *
 * Why a file under the run directory: agents do not hold it by construction once they run in a
 * sandbox that hides klaude's run directory (docs/approvals.md); until then an agent running as
 * your Unix user can read it, as it can read anything of yours.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { lstatSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runDir } from '../config/paths.js';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { outsideRunDirOf, secureRunDir } from '../lib/secure-dir.js';

/** What an answer carries: whose key, and the key. */
export interface PersonKeyClaim {
  holder: string;
  secret: string;
}

const HOLDER = /^[0-9A-Za-z-]{1,64}$/;

export const personKeyDir = (home: string, env: NodeJS.ProcessEnv): string => path.join(runDir(home, env), 'keys');

const keyFile = (home: string, env: NodeJS.ProcessEnv, holder: string): string =>
  path.join(personKeyDir(home, env), `${holder}.key`);

let held: PersonKeyClaim | null = null;

/** The key this process holds (the dashboard's, the web server's), or null. */
export function heldPersonKey(): PersonKeyClaim | null {
  return held;
}

/**
 * Make and hold a key for `holder` (replacing a file a crashed holder of the same name left);
 * `release` removes it. One per process.
 */
export function holdPersonKey(home: string, env: NodeJS.ProcessEnv, holder: string): { release: () => void } {
  if (!HOLDER.test(holder)) throw new Error(`bad key holder '${holder}'`);
  const dir = personKeyDir(home, env);
  const outside = outsideRunDirOf(dir);
  if (outside) secureRunDir(outside);
  ensurePrivateDir(dir);
  const secret = randomBytes(32).toString('base64url');
  const file = keyFile(home, env, holder);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, secret, { mode: 0o600, flag: 'wx' });
  renameSync(tmp, file);
  held = { holder, secret };
  const mine = held;
  return {
    release: () => {
      if (held === mine) held = null;
      try {
        if (readFileSync(file, 'utf8') === secret) unlinkSync(file);
      } catch {
        /* already gone */
      }
    },
  };
}

/** True when `claim` is the key its holder's file holds now (constant-time; a symlink never counts). */
export function personKeyMatches(home: string, env: NodeJS.ProcessEnv, claim: unknown): claim is PersonKeyClaim {
  if (typeof claim !== 'object' || claim === null) return false;
  const { holder, secret } = claim as Partial<PersonKeyClaim>;
  if (typeof holder !== 'string' || typeof secret !== 'string' || !HOLDER.test(holder)) return false;
  const file = keyFile(home, env, holder);
  let stored: string;
  try {
    if (!lstatSync(file).isFile()) return false;
    stored = readFileSync(file, 'utf8');
  } catch {
    return false;
  }
  const a = Buffer.from(stored);
  const b = Buffer.from(secret);
  return stored.length >= 43 && a.length === b.length && timingSafeEqual(a, b);
}

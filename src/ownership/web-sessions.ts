/**
 * What a web page's sign-in proved, kept for as long as the page stays signed in. `klaude web`
 * makes a sign-in link only where the person is (not inside an agent: answerer.ts
 * `agentVerdict`), and writes into the link's file where it was made and the environment and
 * klaude it ran with (web/links.ts). A page that redeems the link gets a session of its own: a
 * random cookie, and `<home>/web/sessions/<sha256 of the cookie>.json` (0600) holding that record
 * with where the page signed in from. Only the hash is on disk, so the files do not sign anyone in.
 *
 * The record is what the page's actions carry: an answer from the web names its session and the
 * runtime records what that session proved (`person (web: signed in from …, link made at …)`);
 * agents started from the page get the environment of the person who made the link (as the queue
 * launches an agent with its starter's, agent-ops/launch-env.ts). Sign-out removes the file;
 * `klaude web --rotate-token` removes them all; a page not used for PAGE_SESSION_IDLE_MS is signed
 * out by the next sign-in (the server marks a session used at most once a day: its file's mtime).
 */
import { createHash, randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KlaudeInvocation } from '../claude/shim.js';
import { ensurePrivateDir } from '../lib/private-dir.js';
import { webDir } from './web-record.js';

/** Who made a sign-in link, as `klaude web` found it when it made it. */
export interface LinkOwner {
  /** Where: `at /dev/pts/3`, or `with no terminal (pid 812)`. */
  place: string;
  /** The environment of that `klaude web`, without what marks a Claude or a session. */
  env: Record<string, string>;
  inv: KlaudeInvocation | null;
  madeAt: number;
}

/** A signed-in page. */
export interface PageSession extends LinkOwner {
  /** sha256 of its cookie: how answers name it. */
  id: string;
  /** The address the page signed in from. */
  from: string;
  signedInAt: number;
}

const ID = /^[0-9a-f]{64}$/;

/** A page not used for this long is signed out (its record holds an environment: credentials). */
export const PAGE_SESSION_IDLE_MS = 30 * 24 * 60 * 60 * 1000;

export const pageSessionsDir = (home: string): string => path.join(webDir(home), 'sessions');
const fileOf = (home: string, id: string): string => path.join(pageSessionsDir(home), `${id}.json`);

export const pageSessionId = (cookie: string): string => createHash('sha256').update(cookie).digest('hex');

/** A LinkOwner read back from JSON, or null when it is not one. */
export function asLinkOwner(v: unknown): LinkOwner | null {
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Partial<LinkOwner>;
  if (typeof o.place !== 'string' || typeof o.env !== 'object' || o.env === null) return null;
  const env: Record<string, string> = {};
  for (const [k, x] of Object.entries(o.env)) if (typeof x === 'string') env[k] = x;
  const inv = o.inv && typeof o.inv.node === 'string' && typeof o.inv.cli === 'string' ? o.inv : null;
  return { place: o.place, env, inv, madeAt: typeof o.madeAt === 'number' ? o.madeAt : 0 };
}

/** Sign a page in: its cookie (the only copy), its record written. */
export function createPageSession(home: string, owner: LinkOwner, from: string, now = Date.now()): string {
  ensurePrivateDir(pageSessionsDir(home));
  pruneIdle(home, now);
  const cookie = randomBytes(32).toString('base64url');
  const id = pageSessionId(cookie);
  const record: PageSession = { ...owner, id, from, signedInAt: now };
  writeFileSync(fileOf(home, id), JSON.stringify(record), { mode: 0o600, flag: 'wx' });
  return cookie;
}

/** The record of a signed-in page by its id, or null (signed out, rotated, never). */
export function readPageSession(home: string, id: string): PageSession | null {
  if (!ID.test(id)) return null;
  try {
    const j = JSON.parse(readFileSync(fileOf(home, id), 'utf8')) as Partial<PageSession>;
    const owner = asLinkOwner(j);
    if (!owner || j.id !== id || typeof j.from !== 'string') return null;
    return { ...owner, id, from: j.from, signedInAt: typeof j.signedInAt === 'number' ? j.signedInAt : 0 };
  } catch {
    return null;
  }
}

export function endPageSession(home: string, id: string): void {
  if (ID.test(id)) rmSync(fileOf(home, id), { force: true });
}

function pruneIdle(home: string, now: number): void {
  for (const name of readdirSync(pageSessionsDir(home))) {
    const file = path.join(pageSessionsDir(home), name);
    try {
      if (now - statSync(file).mtimeMs > PAGE_SESSION_IDLE_MS) rmSync(file, { force: true });
    } catch {
      /* signed out meanwhile */
    }
  }
}

/** Every page is signed out (`--rotate-token`). */
export function dropPageSessions(home: string): void {
  rmSync(pageSessionsDir(home), { recursive: true, force: true });
}

/** How an answer from this page is recorded. */
export function pageSessionLabel(s: PageSession): string {
  return `person (web: signed in from ${s.from}, link made ${s.place})`;
}

// One-time sign-in links (src/web/links.ts): each signs in once and says who made it, expires, and
// --rotate-token's dropLinks ends them all; the server's own token is never one.
import { readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dropLinks, LINK_TTL_MS, mintLink, redeemLink } from '../../src/web/links.js';
import { readOrCreateToken } from '../../src/web/token.js';
import {
  createPageSession,
  dropPageSessions,
  endPageSession,
  PAGE_SESSION_IDLE_MS,
  pageSessionId,
  pageSessionLabel,
  readPageSession,
  type LinkOwner,
} from '../../src/ownership/web-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';

const homes: TempHome[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) h.cleanup();
});
const home = (): string => {
  const h = makeTempHome({ prefix: 'klaude-links-' });
  homes.push(h);
  return h.klaudeHome;
};

const OWNER: LinkOwner = { place: 'at /dev/pts/3', env: { PATH: '/bin', SECRET_KEY: 'k' }, inv: null, madeAt: 1 };

describe('one-time sign-in links', () => {
  it('a link redeems once; a second use, a made-up token and the server token do not', () => {
    const h = home();
    const link = mintLink(h, OWNER);
    expect(link).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(redeemLink(h, link)).toEqual(OWNER);
    expect(redeemLink(h, link)).toBeNull();
    expect(redeemLink(h, 'A'.repeat(43))).toBeNull();
    expect(redeemLink(h, '../../token')).toBeNull();
    expect(redeemLink(h, readOrCreateToken(h))).toBeNull();
  });

  it('stores only 0600 hashes; an old link has expired and is pruned by the next mint', () => {
    const h = home();
    const now = Date.now();
    const old = mintLink(h, OWNER, now);
    const dir = join(h, 'web', 'links');
    expect(readdirSync(dir)).toHaveLength(1);
    expect(readdirSync(dir)[0]).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(dir, readdirSync(dir)[0]!)).mode & 0o777).toBe(0o600);
    expect(redeemLink(h, old, now + LINK_TTL_MS + 1000)).toBeNull();
    const stale = mintLink(h, OWNER, now);
    mintLink(h, OWNER, now + LINK_TTL_MS + 1000);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(redeemLink(h, stale)).toBeNull();
  });

  it('dropLinks ends every unused link', () => {
    const h = home();
    const a = mintLink(h, OWNER);
    const b = mintLink(h, OWNER);
    dropLinks(h);
    expect(redeemLink(h, a)).toBeNull();
    expect(redeemLink(h, b)).toBeNull();
    expect(redeemLink(h, mintLink(h, OWNER))).toEqual(OWNER);
  });
});

describe("a signed-in page's session", () => {
  it('keeps what its link proved, under the hash of its cookie only (0600), until sign-out', () => {
    const h = home();
    const cookie = createPageSession(h, OWNER, '127.0.0.1');
    const id = pageSessionId(cookie);
    const dir = join(h, 'web', 'sessions');
    expect(readdirSync(dir)).toEqual([`${id}.json`]);
    expect(statSync(join(dir, `${id}.json`)).mode & 0o777).toBe(0o600);
    const s = readPageSession(h, id)!;
    expect(s).toMatchObject({ ...OWNER, id, from: '127.0.0.1' });
    expect(pageSessionLabel(s)).toBe('person (web: signed in from 127.0.0.1, link made at /dev/pts/3)');
    expect(readPageSession(h, pageSessionId('x'.repeat(43)))).toBeNull();
    expect(readPageSession(h, '../token')).toBeNull();
    endPageSession(h, id);
    expect(readPageSession(h, id)).toBeNull();
  });

  it('a page idle past its limit is signed out by the next sign-in; --rotate-token signs out every page', () => {
    const h = home();
    const idle = pageSessionId(createPageSession(h, OWNER, '127.0.0.1'));
    const old = new Date(Date.now() - PAGE_SESSION_IDLE_MS - 60_000);
    utimesSync(join(h, 'web', 'sessions', `${idle}.json`), old, old);
    const fresh = pageSessionId(createPageSession(h, OWNER, '10.0.0.2'));
    expect(readPageSession(h, idle)).toBeNull();
    expect(readPageSession(h, fresh)).not.toBeNull();
    dropPageSessions(h);
    expect(readPageSession(h, fresh)).toBeNull();
  });
});

// `klaude web` at the HTTP level: one detached server per home, found again by a second call; the
// gate refuses what a remote shell must refuse (no token, a wrong Host, another origin, a guessed
// token), and nothing of a session is served before sign-in.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runKlaude } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { mintLink } from '../../src/web/links.js';
import { http, openStream, signIn, startWeb, testOwner, type WebServer } from '../support/web-client.js';

const homes: TempHome[] = [];
afterEach(async () => {
  for (const h of homes.splice(0)) {
    await runKlaude(['web', '--stop'], { env: h.env, cwd: h.projectDir });
    h.cleanup();
  }
});

async function setup(): Promise<{ home: TempHome; w: WebServer }> {
  const home = makeTempHome({ prefix: 'klaude-web-' });
  homes.push(home);
  // A session to protect: `klaude sessions` makes the project; a finished agent row is enough.
  await runKlaude(['sessions'], { env: home.env, cwd: home.projectDir });
  return { home, w: await startWeb(home.env, home.projectDir) };
}

describe('klaude web', () => {
  it('starts one server per home, stores a 0600 token, finds it again, stops it', async () => {
    const { home, w } = await setup();
    expect(w.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(w.link).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(w.link).not.toBe(w.token);
    expect(statSync(join(home.klaudeHome, 'web', 'token')).mode & 0o777).toBe(0o600);
    const links = join(home.klaudeHome, 'web', 'links');
    expect(statSync(links).mode & 0o777).toBe(0o700);
    for (const f of readdirSync(links)) expect(statSync(join(links, f)).mode & 0o777).toBe(0o600);
    // Only the link's hash is on disk.
    expect(readdirSync(links).join()).not.toContain(w.link);
    const again = await runKlaude(['web', '--json'], { env: home.env, cwd: home.projectDir });
    expect(JSON.parse(again.stdout)).toMatchObject({ started: false, port: w.port });
    const st = await runKlaude(['web', '--status'], { env: home.env, cwd: home.projectDir });
    expect(st.stdout).toContain(`running at http://127.0.0.1:${w.port}/`);
    const stop = await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir });
    expect(stop.stdout).toContain('stopped');
    const after = await runKlaude(['web', '--status'], { env: home.env, cwd: home.projectDir });
    expect(after.code).toBe(1);
  });

  it('refuses everything of a session without a token, serves only the empty shell', async () => {
    const { w } = await setup();
    for (const p of ['/api/state', '/api/events', '/api/sessions/01ABCDEFGHJKMNPQRSTVWXYZ00/log', '/api/me'])
      expect((await http(w.port, 'GET', p)).status).toBe(401);
    expect((await http(w.port, 'POST', '/api/start', { headers: { origin: w.origin }, body: {} })).status).toBe(401);
    const shell = await http(w.port, 'GET', '/');
    expect(shell.status).toBe(200);
    expect(shell.body).toContain('<div id="root"></div>');
    expect(shell.headers['content-security-policy']).toContain("script-src 'self'");
    expect(shell.headers['content-security-policy']).not.toMatch(/script-src[^;]*unsafe/);
    expect(shell.headers['content-security-policy']).toMatch(/style-src-elem 'self' 'nonce-[A-Za-z0-9+/=]{24}'/);
  });

  it('refuses a wrong Host (DNS rebinding), even with the token', async () => {
    const { w } = await setup();
    const bearer = { authorization: `Bearer ${w.token}` };
    expect((await http(w.port, 'GET', '/api/state', { headers: bearer })).status).toBe(200);
    for (const host of ['evil.example:' + w.port, `127.0.0.1:${w.port + 1}`, 'localhost.evil.example'])
      expect((await http(w.port, 'GET', '/api/state', { headers: { ...bearer, host } })).status).toBe(421);
    expect((await http(w.port, 'GET', '/', { headers: { host: 'rebind.example:' + w.port } })).status).toBe(421);
  });

  it('answers to a DNS name only when the person names it (--allow-host), and says where to open it', async () => {
    const home = makeTempHome({ prefix: 'klaude-web-' });
    homes.push(home);
    const bad = await runKlaude(['web', '--allow-host', 'my box'], { env: home.env, cwd: home.projectDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--allow-host needs DNS names.*\[E_USAGE\]/);
    expect((await runKlaude(['web', '--status'], { env: home.env, cwd: home.projectDir })).code).toBe(1);
    const r = await runKlaude(['web', '--port', '0', '--allow-host', 'Box.Example,other.example', '--json'], {
      env: home.env,
      cwd: home.projectDir,
    });
    expect(r.code).toBe(0);
    const o = JSON.parse(r.stdout) as { port: number; url: string };
    expect(o.url).toMatch(new RegExp(`^http://box\\.example:${o.port}/#token=`));
    const token = (await import('node:fs')).readFileSync(join(home.klaudeHome, 'web', 'token'), 'utf8').trim();
    const get = (host: string) =>
      http(o.port, 'GET', '/api/state', { headers: { authorization: `Bearer ${token}`, host } });
    for (const host of [
      `box.example:${o.port}`,
      `BOX.EXAMPLE:${o.port}`,
      `other.example:${o.port}`,
      `127.0.0.1:${o.port}`,
    ])
      expect((await get(host)).status).toBe(200);
    for (const host of [`evil.example:${o.port}`, `box.example.evil.example:${o.port}`, `box.example:${o.port + 1}`])
      expect((await get(host)).status).toBe(421);
    // Asked again with other names, the running server says it answers to its own until restarted.
    const again = await runKlaude(['web', '--allow-host', 'third.example'], { env: home.env, cwd: home.projectDir });
    expect(again.stdout).toContain('answering to box.example, other.example');
    expect(again.stdout).toContain('--stop` first to change it');
  });

  it('trades the token for an HttpOnly SameSite=Strict cookie, and slows down wrong tokens', async () => {
    const { w } = await setup();
    const crossLogin = await http(w.port, 'POST', '/api/login', {
      headers: { origin: 'http://evil.example' },
      body: { token: w.link },
    });
    expect(crossLogin.status).toBe(403);
    const r = await http(w.port, 'POST', '/api/login', { headers: { origin: w.origin }, body: { token: w.link } });
    expect(r.status).toBe(200);
    const set = String(r.headers['set-cookie']);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    const cookie = set.split(';')[0]!;
    expect((await http(w.port, 'GET', '/api/state', { headers: { cookie } })).status).toBe(200);
    expect((await http(w.port, 'GET', '/api/state', { headers: { cookie: 'klaude_web=forged' } })).status).toBe(401);
    // A wrong token: the next attempt right after is not even looked at, the right token included.
    const wrong = await http(w.port, 'POST', '/api/login', {
      headers: { origin: w.origin },
      body: { token: 'x'.repeat(43) },
    });
    expect(wrong.status).toBe(401);
    const soon = await http(w.port, 'POST', '/api/login', {
      headers: { origin: w.origin },
      body: { token: mintLink(w.home, testOwner(w)) },
    });
    expect(soon.status).toBe(429);
    expect(soon.headers['retry-after']).toBeDefined();
    const bearerSoon = await http(w.port, 'GET', '/api/state', { headers: { authorization: 'Bearer nope' } });
    expect(bearerSoon.status).toBe(429);
  });

  it('a printed link signs in once; a second use is refused with how to get a fresh one', async () => {
    const { home, w } = await setup();
    const login = (token: string) =>
      http(w.port, 'POST', '/api/login', { headers: { origin: w.origin }, body: { token } });
    const first = await login(w.link);
    expect(first.status).toBe(200);
    const cookie = String(first.headers['set-cookie']).split(';')[0]!;
    // `klaude web` with the server running prints a new link, which signs in too.
    const next = await runKlaude(['web', '--json'], { env: home.env, cwd: home.projectDir });
    const url = JSON.parse(next.stdout).url as string;
    expect(url).not.toContain(w.link);
    expect((await login(/#token=(.+)$/.exec(url)![1]!)).status).toBe(200);
    // The first link again: refused, with the way to a fresh one; the cookie it gave still works.
    const again = await login(w.link);
    expect(again.status).toBe(401);
    expect(JSON.parse(again.body)).toMatchObject({ error: { code: 'E_WEB_LINK' } });
    expect(JSON.parse(again.body).error.hint).toContain('klaude web --rotate-token');
    expect((await http(w.port, 'GET', '/api/state', { headers: { cookie } })).status).toBe(200);
    // The page's HTML: a new style nonce in each response, the same in its CSP and its meta tag.
    const a = await http(w.port, 'GET', '/');
    const b = await http(w.port, 'GET', '/');
    const nonce = /'nonce-([^']+)'/.exec(String(a.headers['content-security-policy']))![1]!;
    expect(a.body).toContain(`content="${nonce}"`);
    expect(b.body).not.toContain(nonce);
  });

  it('refuses state changes and event streams from another origin', async () => {
    const { w } = await setup();
    const cookie = await signIn(w);
    const evil = { cookie, origin: 'http://evil.example' };
    const r = await http(w.port, 'POST', '/api/sessions/01ABCDEFGHJKMNPQRSTVWXYZ00/interrupt', { headers: evil });
    expect(r.status).toBe(403);
    expect((await http(w.port, 'POST', '/api/start', { headers: { cookie }, body: {} })).status).toBe(403);
    const site = await http(w.port, 'POST', '/api/start', {
      headers: { cookie, origin: w.origin, 'sec-fetch-site': 'same-site' },
      body: {},
    });
    expect(site.status).toBe(403);
    expect((await http(w.port, 'GET', '/api/events', { headers: evil })).status).toBe(403);
    const ok = await http(w.port, 'GET', '/api/events', {
      headers: { cookie, origin: w.origin },
      firstChunkOnly: true,
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain('event: state');
  });

  it('rotating the token signs every page out, open event streams included', async () => {
    const { home, w } = await setup();
    const cookie = await signIn(w);
    const stream = openStream(w.port, '/api/events', { cookie, origin: w.origin });
    expect(await stream.first).toContain('event: state');
    const rot = await runKlaude(['web', '--rotate-token'], { env: home.env, cwd: home.projectDir });
    expect(rot.code).toBe(0);
    expect((await http(w.port, 'GET', '/api/state', { headers: { cookie } })).status).toBe(401);
    await stream.ended;
  });

  it('refuses a body past its bound', async () => {
    const { w } = await setup();
    const cookie = await signIn(w);
    const big = await http(w.port, 'POST', '/api/start', {
      headers: { cookie, origin: w.origin },
      body: { project: 'p', type: 'general', prompt: 'x'.repeat(200_000) },
    });
    expect(big.status).toBe(413);
  });
});

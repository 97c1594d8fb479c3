// The page's shell (a seeded home, no claude): a fresh link pasted into the same tab signs in, a
// rotated token or a stopped server shows itself instead of a live-looking page, Back and reload
// keep to the app, what needs the person stays in reach on the phone, notifications name the
// project and open their session, and the offline screen comes back by itself.
import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { updateSession, createSession } from '../../src/db/repos/sessions.js';
import { DESKTOP, desktopContext, launchChromium, phoneContext } from '../support/browser.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { freshUrl, startWeb, type WebServer } from '../support/web-client.js';

const SHOTS = process.env.KLAUDE_SHOTS;
let browser: Browser;
const homes: TempHome[] = [];
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});
afterEach(async () => {
  for (const c of contexts.splice(0)) await c.close();
  for (const h of homes.splice(0)) {
    await runKlaude(['web', '--stop'], { env: h.env, cwd: h.projectDir });
    h.cleanup();
  }
});

interface Setup {
  home: TempHome;
  w: WebServer;
  /** A finished session and one waiting for the person. */
  done: string;
  waiting: string;
}

async function setup(): Promise<Setup> {
  const home = makeTempHome({ prefix: 'klaude-webj-' });
  homes.push(home);
  const { db, hash } = seedProject(home);
  try {
    const done = createSession(db, {
      projectId: hash,
      type: 'general',
      runtime: 'claude',
      status: 'done',
      prompt: 'finished one',
    }).id;
    const waiting = createSession(db, {
      projectId: hash,
      type: 'general',
      runtime: 'claude',
      status: 'waiting',
      prompt: 'asks you',
    }).id;
    return { home, w: await startWeb(home.env, home.projectDir), done, waiting };
  } finally {
    db.close();
  }
}

async function page(kind: 'phone' | 'desktop', init?: string): Promise<Page> {
  const ctx = kind === 'phone' ? await phoneContext(browser, '') : await desktopContext(browser);
  contexts.push(ctx);
  if (init) await ctx.addInitScript(init);
  return ctx.newPage();
}

async function shot(p: Page, name: string): Promise<void> {
  if (!SHOTS) return;
  mkdirSync(SHOTS, { recursive: true });
  await p.screenshot({ path: `${SHOTS}/${name}.png` });
}

describe('the page shell', () => {
  it('signs in when a fresh link is pasted into a tab that showed a refusal; the code stays out of the sentence', async () => {
    const { w } = await setup();
    const p = await page('phone');
    await p.goto(`${w.origin}/#token=not-a-link`);
    const err = p.getByTestId('sign-in-error');
    await err.waitFor();
    expect(await err.innerText()).toContain('already used');
    expect(await err.locator('code').first().innerText()).toBe('klaude web');
    expect(await err.getAttribute('title')).toBe('E_WEB_LINK');
    expect(await err.innerText()).not.toContain('`');
    expect(await err.innerText()).not.toContain('[E_WEB_LINK]');
    await shot(p, 'j1-refused');
    await p.evaluate(`location.hash = ${JSON.stringify(new URL(freshUrl(w)).hash)}`);
    await p.locator('.conn.on').waitFor();
    expect(p.url()).not.toContain('token=');
  });

  it('after --rotate-token the open page says it was signed out, and a new link in the same tab signs in', async () => {
    const { home, w } = await setup();
    const p = await page('desktop');
    await p.goto(w.url);
    await p.locator('.conn.on').waitFor();
    const rot = await runKlaude(['web', '--rotate-token'], { env: home.env, cwd: home.projectDir });
    expect(rot.code).toBe(0);
    await p.getByTestId('signed-out-now').waitFor();
    expect(await p.getByTestId('approve').count()).toBe(0);
    await shot(p, 'j2-rotated');
    await p.evaluate(`location.hash = ${JSON.stringify(new URL(freshUrl(w)).hash)}`);
    await p.locator('.conn.on').waitFor();
  });

  it('keeps the open session in the URL: reload keeps it, Back returns to the list (phone)', async () => {
    const { w, done } = await setup();
    const p = await page('phone');
    await p.goto(w.url);
    await p.locator('.conn.on').waitFor();
    await p.getByText('finished one').first().click();
    await p.locator(`[data-testid=session-pane][data-session="${done}"]`).waitFor();
    expect(new URL(p.url()).hash).toBe(`#s=${done}`);
    await p.reload();
    await p.locator(`[data-testid=session-pane][data-session="${done}"]`).waitFor();
    await p.getByRole('button', { name: 'close', exact: true }).click();
    await p.getByTestId('session-pane').waitFor({ state: 'detached' });
    expect(new URL(p.url()).hash).toBe('');
    await p.getByText('finished one').first().click();
    await p.getByTestId('session-pane').waitFor();
    await p.goBack();
    await p.getByTestId('session-pane').waitFor({ state: 'detached' });
    expect(new URL(p.url()).origin).toBe(w.origin);
    await p.getByText('finished one').first().waitFor();
    await shot(p, 'j3-phone-after-back');
  });

  it('phone: with a session open, a bar says what else needs you and goes back to the list', async () => {
    const { w, done, waiting } = await setup();
    const p = await page('phone');
    await p.goto(w.url);
    await p.locator('.conn.on').waitFor();
    await p.locator(`[data-testid=need][data-session="${waiting}"]`).waitFor();
    await p.getByText('finished one').first().click();
    const bar = p.getByTestId('needs-bar');
    await bar.waitFor();
    expect(await bar.innerText()).toMatch(/1 needs you/);
    expect((await bar.boundingBox())!.height).toBeGreaterThanOrEqual(40);
    await shot(p, 'j17-needs-bar');
    await bar.click();
    await p.getByTestId('needs-you').waitFor();
    expect(await p.getByTestId('session-pane').count()).toBe(0);
  });

  it('desktop: the empty side says what to do; Escape closes the open session', async () => {
    const { w } = await setup();
    const p = await page('desktop');
    await p.setViewportSize(DESKTOP);
    await p.goto(w.url);
    await p.locator('.conn.on').waitFor();
    expect(await p.getByTestId('empty-pane').innerText()).toMatch(/Pick a session/);
    await shot(p, 'j31-empty');
    await p.getByText('finished one').first().click();
    await p.getByTestId('session-pane').waitFor();
    await p.keyboard.press('Escape');
    await p.getByTestId('session-pane').waitFor({ state: 'detached' });
    await p.getByTestId('empty-pane').waitFor();
  });

  it('server stopped: a banner says so, an action is refused with that sentence, and it comes back by itself', async () => {
    const { home, w, done } = await setup();
    const p = await page('desktop');
    await p.goto(w.url);
    await p.locator('.conn.on').waitFor();
    await p.getByText('finished one').first().click();
    await p.locator(`[data-testid=session-pane][data-session="${done}"]`).waitFor();
    expect((await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir })).code).toBe(0);
    await p.getByTestId('down-banner').waitFor();
    expect(await p.getByTestId('down-banner').innerText()).toBe('klaude web does not answer — reconnecting…');
    await p.getByTestId('archive').click();
    await p.getByText('klaude web does not answer — reconnecting…').nth(1).waitFor();
    expect(await p.locator('body').innerText()).not.toContain('Failed to fetch');
    await shot(p, 'j5-down');
    const again = await runKlaude(['web', '--port', String(w.port), '--json'], {
      env: home.env,
      cwd: home.projectDir,
      timeoutMs: 30_000,
    });
    expect(again.code).toBe(0);
    await p.getByTestId('down-banner').waitFor({ state: 'detached', timeout: 30_000 });
    await p.locator('.conn.on').waitFor();
  });

  it('the offline screen retries by itself', async () => {
    const { home, w } = await setup();
    const p = await page('phone');
    await p.goto(w.url);
    await p.locator('.conn.on').waitFor();
    await p.evaluate('navigator.serviceWorker.ready.then(() => undefined)');
    await p.reload();
    await p.locator('.conn.on').waitFor();
    expect((await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir })).code).toBe(0);
    await p.reload();
    await p.getByTestId('unreachable').waitFor();
    await shot(p, 'j21-unreachable');
    const again = await runKlaude(['web', '--port', String(w.port), '--json'], {
      env: home.env,
      cwd: home.projectDir,
      timeoutMs: 30_000,
    });
    expect(again.code).toBe(0);
    await p.locator('.conn.on').waitFor({ timeout: 30_000 });
  });

  it('a notification names the project and says "failed"; its click opens the session; Notify me goes once answered', async () => {
    const { home, w, done } = await setup();
    // Record notifications instead of showing them (a headless Chromium shows none).
    const p = await page(
      'desktop',
      `window.__notes = [];
       window.Notification = class {
         static permission = 'granted';
         constructor(t, o) { this.title = t + ' | ' + o.body; window.__notes.push(this); }
         close() {}
       };`,
    );
    await p.goto(w.url);
    await p.locator('.conn.on').waitFor();
    const { db } = seedProject(home);
    try {
      updateSession(db, done, { status: 'failed', error: 'exited with code 41' });
    } finally {
      db.close();
    }
    await expect.poll(() => p.evaluate('window.__notes.length'), { timeout: 15_000 }).toBeGreaterThan(0);
    const title = (await p.evaluate('window.__notes[0].title')) as string;
    expect(title).toMatch(/^project · general \w{8} failed \| exited with code 41$/);
    await p.evaluate('window.__notes[0].onclick()');
    await p.locator(`[data-testid=session-pane][data-session="${done}"]`).waitFor();
    // The service worker's notification (phones): its click reaches the page as a message.
    await p.keyboard.press('Escape');
    await p.getByTestId('session-pane').waitFor({ state: 'detached' });
    await p.evaluate(
      `navigator.serviceWorker.dispatchEvent(new MessageEvent('message', { data: { open: '${done}' } }))`,
    );
    await p.locator(`[data-testid=session-pane][data-session="${done}"]`).waitFor();

    // The person allows notifications (headless Chromium has no prompt to answer).
    const q = await page(
      'desktop',
      `let perm = 'default';
       Object.defineProperty(Notification, 'permission', { get: () => perm });
       Notification.requestPermission = () => ((perm = 'granted'), Promise.resolve(perm));`,
    );
    await q.goto(freshUrl(w));
    await q.getByTestId('notify-me').click();
    await q.getByTestId('notify-me').waitFor({ state: 'detached', timeout: 2000 });
  });
});

// `klaude web`'s live terminal of a PTY session, in a real Chromium against the real claude and the
// Messages-API stand-in: the claude screen appears view-only; typing is refused until "Take over";
// taken over, typed text reaches claude (the stand-in answers it); a second holder (a terminal's
// `klaude talk`, another page) is refused with the holder named; "Release" gives it back; the
// WebSocket is refused without the cookie, from another origin, and to a foreign Host; a page whose
// server restarts gets claude's screen back by itself, view-only.
import type { Browser, Page } from 'playwright-core';
import { WebSocket } from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnPtyHost } from '../../src/pty/launch.js';
import { desktopContext, launchChromium, phoneContext } from '../support/browser.js';
import { KLAUDE_CLI, REPO_ROOT } from '../support/klaude-bin.js';
import type { PtySession } from '../support/pty-driver.js';
import { freshUrl, restartWeb, signIn, startWeb, type WebServer } from '../support/web-client.js';
import { until } from '../support/until.js';
import { READY } from './supervisor-helpers.js';
import { sessionWithConversation, startTalk, stopHosts } from './talk-helpers.js';
import { join } from 'node:path';
import { useAgentHomes, type AgentHome } from './agent-home.js';

let browser: Browser;
const fx = useAgentHomes();
let home: AgentHome;
let session: { id: string };
let w: WebServer;
let first = true;
const terms: PtySession[] = [];
/** What the browser reported against the page's CSP (xterm's styles must pass it). */
const violations: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  home = fx.home({ supervisor: true });
  session = await sessionWithConversation(home, 'web-terminal-marker');
  await spawnPtyHost({
    home: home.klaudeHome,
    sessionId: session.id,
    inv: { node: process.execPath, cli: KLAUDE_CLI },
    env: home.env,
    cwd: home.projectDir,
    size: { cols: 100, rows: 30 },
  });
  w = await startWeb(home.env, home.projectDir);
}, 90_000);

afterAll(async () => {
  for (const t of terms) await t.dispose();
  if (home) await home.k(['web', '--stop']);
  if (home && session) await stopHosts(home, session.id);
  await browser?.close();
});

async function openTerminal(phone = false): Promise<Page> {
  const ctx = phone ? await phoneContext(browser, w.origin) : await desktopContext(browser);
  const page = await ctx.newPage();
  // Each page signs in with a link of its own: a link is good once.
  const url = first ? w.url : freshUrl(w);
  first = false;
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(url);
  await page.locator(`[data-testid=session-row][data-session="${session.id}"]`).click();
  await page.locator('[data-testid=term-mode][data-mode=view]').waitFor({ timeout: 20_000 });
  return page;
}

const screenText = (page: Page): Promise<string> => page.getByTestId('terminal').innerText();

async function waitScreen(page: Page, text: string, timeout = 45_000): Promise<void> {
  type Doc = { querySelector(s: string): { innerText: string } | null };
  await page.waitForFunction(
    (t) =>
      (
        (globalThis as unknown as { document: Doc }).document.querySelector('[data-testid=terminal]')?.innerText ?? ''
      ).includes(t),
    text,
    { timeout },
  );
}

/** The README's screenshots: KLAUDE_WEB_SCREENSHOTS=1 writes them to assets/. */
async function shot(page: Page, name: string): Promise<void> {
  if (process.env.KLAUDE_WEB_SCREENSHOTS === '1') await page.screenshot({ path: join(REPO_ROOT, 'assets', name) });
}

/** The upgrade's answer: 101 (open), or the HTTP status it was refused with. */
function upgradeStatus(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${w.port}/api/sessions/${session.id}/terminal`, { headers });
    ws.on('open', () => (ws.close(), resolve(101)));
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('error', () => resolve(-1));
  });
}

describe('klaude web: the terminal of a PTY session', () => {
  it('shows claude view-only, refuses typing until take-over, then typed text reaches claude', async () => {
    const page = await openTerminal();
    await waitScreen(page, 'Reply to: web-terminal-marker');
    await waitScreen(page, READY);
    await page.getByTestId('terminal').click();
    await page.keyboard.type('typed while only watching');
    await expect(page.getByTestId('term-note').innerText()).resolves.toContain('view only');
    expect(await screenText(page)).not.toContain('typed while only watching');

    await page.getByTestId('take-over').click();
    await page.locator('[data-testid=term-mode][data-mode=control]').waitFor();
    await page.keyboard.type('hello from the web page');
    await waitScreen(page, 'hello from the web page');
    await page.keyboard.press('Enter');
    await waitScreen(page, 'Reply to: hello from the web page');
    expect(JSON.stringify(fx.mock.mainRequests().at(-1)!.body.messages)).toContain('hello from the web page');
    expect(JSON.stringify(fx.mock.mainRequests().at(-1)!.body.messages)).not.toContain('only watching');
    await shot(page, 'web-terminal-desktop.png');

    // Held by this page: a terminal's `klaude talk` and another page are refused, the holder named.
    const talk = startTalk(home, [session.id.slice(-8)]);
    terms.push(talk);
    expect((await talk.exited).exitCode).toBe(1);
    expect(talk.text()).toMatch(/is held by a web page \(klaude web, from 127\.0\.0\.1\) \[E_SESSION_BUSY\]/);
    const other = await openTerminal(true);
    await other.getByTestId('take-over').click();
    await expect(other.getByTestId('term-note').innerText()).resolves.toMatch(/held by a web page.*E_SESSION_BUSY/s);
    await waitScreen(other, 'Reply to: hello from the web page');
    await shot(other, 'web-terminal-phone.png');

    // Released: the other page takes it.
    await page.getByTestId('release').click();
    await page.locator('[data-testid=term-mode][data-mode=view]').waitFor();
    await other.getByTestId('take-over').click();
    await other.locator('[data-testid=term-mode][data-mode=control]').waitFor();
    await other.context().close();
    await page.context().close();
    expect(violations).toEqual([]);
  });

  it('refuses the WebSocket without the cookie, from another origin, and to a foreign Host', async () => {
    const cookie = await signIn(w);
    const origin = w.origin;
    expect(await upgradeStatus({ cookie, origin })).toBe(101);
    expect(await upgradeStatus({ origin })).toBe(401);
    expect(await upgradeStatus({ cookie, origin: 'http://evil.example' })).toBe(403);
    expect(await upgradeStatus({ cookie, origin, host: `evil.example:${w.port}` })).toBe(421);
    expect(await upgradeStatus({ cookie: 'klaude_web=forged', origin })).toBe(401);
    // Signed in but not holding the session: keys are refused by the server too, not only the page.
    const ws = new WebSocket(`ws://127.0.0.1:${w.port}/api/sessions/${session.id}/terminal`, {
      headers: { cookie, origin },
    });
    const texts: string[] = [];
    ws.on('message', (m, binary) => void (binary ? undefined : texts.push(String(m))));
    await new Promise((r) => ws.once('open', r));
    await until('the screen message', () => texts.some((t) => t.includes('"screen"')));
    ws.send(JSON.stringify({ t: 'in', d: 'sneaked in\r' }));
    await until('the refusal', () => texts.some((t) => t.includes('E_WEB_VIEW_ONLY')));
    ws.close();
  });

  it('the server restarted on its port: the page comes back by itself, view-only, control released', async () => {
    const page = await openTerminal(true);
    await waitScreen(page, READY);
    await page.getByTestId('take-over').click();
    await page.locator('[data-testid=term-mode][data-mode=control]').waitFor();
    await waitScreen(page, READY);

    const restarted = restartWeb(w, home.env, home.projectDir);
    await page.locator('[data-testid=term-mode][data-mode=reconnecting]').waitFor({ timeout: 20_000 });
    await expect(page.getByTestId('term-mode').innerText()).resolves.toMatch(/reconnecting… \(attempt \d+\)/);
    await expect(page.getByTestId('term-note').innerText()).resolves.toContain('control released');
    await page.getByTestId('reconnect').waitFor();
    // The last screen stays while the page is cut off.
    expect(await screenText(page)).toContain(READY);
    // Same port and token: `w` (and its spent first link, for the last test) still holds.
    await restarted;

    // No click: the page reconnects, with claude's screen, and only watches.
    await page.locator('[data-testid=term-mode][data-mode=view]').waitFor({ timeout: 30_000 });
    await waitScreen(page, READY);
    await expect(page.getByTestId('term-note').innerText()).resolves.toContain('control released');
    await page.getByTestId('terminal').click();
    await page.keyboard.type('typed after the restart');
    await expect(page.getByTestId('term-note').innerText()).resolves.toContain('view only');
    expect(await screenText(page)).not.toContain('typed after the restart');
    // The session is free: taking it over again works.
    await page.getByTestId('take-over').click();
    await page.locator('[data-testid=term-mode][data-mode=control]').waitFor();
    await page.getByTestId('release').click();
    await page.locator('[data-testid=term-mode][data-mode=view]').waitFor();
    await page.context().close();
  });

  // Last: the spent link counts as a wrong token, which slows down the next sign-in.
  it('the printed link signs in once: opened again, the page says it was used and how to get a new one', async () => {
    const ctx = await desktopContext(browser);
    const page = await ctx.newPage();
    await page.goto(w.url);
    await expect(page.getByTestId('sign-in-error').innerText()).resolves.toMatch(/already used.*klaude web/s);
    await ctx.close();
  });
});

// The page as an installed app: its service worker keeps the shell, so with the server stopped
// (or the phone offline) the page still opens and says what is wrong instead of the browser's
// error page; once `klaude web` answers again on the same address, it signs in again with the cookie.
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { desktopContext, launchChromium } from '../support/browser.js';
import { runKlaude } from '../support/klaude-bin.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { startWeb } from '../support/web-client.js';

let browser: Browser;
let home: TempHome;

beforeAll(async () => {
  browser = await launchChromium();
  home = makeTempHome({ prefix: 'klaude-weboffline-' });
});

afterAll(async () => {
  await browser?.close();
  await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir });
  home?.cleanup();
});

describe('the offline shell', () => {
  it('opens with the server stopped, says so, and signs in again once it answers', async () => {
    const w = await startWeb(home.env, home.projectDir);
    const page = await (await desktopContext(browser)).newPage();
    await page.goto(w.url);
    await page.locator('.conn.on').waitFor();
    // Installed: the worker is active and controls the page (from the next load on).
    await page.evaluate('navigator.serviceWorker.ready.then(() => undefined)');
    await page.reload();
    await page.locator('.conn.on').waitFor();
    expect(await page.evaluate('navigator.serviceWorker.controller !== null')).toBe(true);

    const stop = await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir });
    expect(stop.code).toBe(0);
    await page.reload();
    await page.getByTestId('unreachable').waitFor();
    expect(await page.getByTestId('unreachable').innerText()).toMatch(/does not answer.*klaude web/s);

    const again = await runKlaude(['web', '--port', String(w.port), '--json'], {
      env: home.env,
      cwd: home.projectDir,
      timeoutMs: 30_000,
    });
    expect(again.code).toBe(0);
    // The page tries again by itself (backoff); "Retry now" only makes it sooner — and may already
    // be gone when the page got there first, so it is pressed without waiting for it.
    await page.evaluate("[...document.querySelectorAll('button')].find((b) => b.textContent === 'Retry now')?.click()");
    await page.locator('.conn.on').waitFor({ timeout: 60_000 });
  });
});

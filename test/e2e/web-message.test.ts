// The web page's message box in a real Chromium, against the real claude and the stand-in: a draft
// kept per session in the browser survives a reload and a restart of the browser and goes once
// sent; an image pasted (or picked) reaches the Messages API as an image block; dictation where
// the browser has speech recognition, no button where it has none; a codex agent's box offers no
// images and the server refuses them for it; the message route alone takes bodies big enough for
// images; a running agent's row shows its progress, a queued one its place and priority.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { request } from 'node:http';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { AgentServices } from '../../src/agent-ops/context.js';
import { startAgents } from '../../src/agent-ops/start.js';
import { createSession, getSession } from '../../src/db/repos/sessions.js';
import { CHROMIUM, DESKTOP, desktopContext, launchChromium } from '../support/browser.js';
import { GIF, PNG } from '../support/images.js';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import { until } from '../support/until.js';
import { freshUrl, http, signIn, type WebServer } from '../support/web-client.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const fx = useAgentHomes({
  responder: (r) =>
    r.images.length
      ? { text: `I see ${r.images.map((i) => `${i.mediaType} of ${i.bytes.length} bytes`).join(' and ')}` }
      : { text: `Reply to: ${r.prompt}` },
});
let browser: Browser;
let home: AgentHome;
let svc: AgentServices;
let w: WebServer;
const profiles: string[] = [];

beforeAll(async () => {
  browser = await launchChromium();
  home = fx.home({ prefix: 'klaude-webmsg-' });
  svc = home.services();
  w = await home.web();
}, 60_000);

afterEach(() => {
  for (const p of profiles.splice(0)) rmSync(p, { recursive: true, force: true });
});

afterAll(async () => {
  await browser?.close();
});

async function doneAgent(prompt: string): Promise<string> {
  const id = (await startAgents(svc, { type: 'general', prompt })).sessions[0]!.id;
  await until('the agent ends done', () => getSession(svc.db, id)?.status === 'done', 60_000);
  return id;
}

async function signedIn(ctx: BrowserContext): Promise<Page> {
  const page = ctx.pages()[0] ?? (await ctx.newPage());
  await page.goto(freshUrl(w));
  await page.locator('.conn.on').waitFor();
  return page;
}

async function openSession(page: Page, id: string): Promise<void> {
  await page.locator(`[data-testid=session-row][data-session="${id}"]`).click();
  await page.locator(`[data-testid=session-pane][data-session="${id}"]`).waitFor();
}

/** A browser with a profile on disk (as a person's is): what it keeps survives closing it. */
function persistent(dir: string): Promise<BrowserContext> {
  return chromium.launchPersistentContext(dir, {
    executablePath: CHROMIUM!,
    args: ['--no-sandbox', '--disable-gpu'],
    viewport: DESKTOP,
  });
}

/** Paste files into the message box as a browser's clipboard would (a screenshot, copied files). */
async function paste(page: Page, files: { name: string; type: string; bytes: Buffer }[]): Promise<void> {
  await page.getByTestId('message-input').evaluate(
    (el, fs) => {
      const g = globalThis as unknown as {
        DataTransfer: new () => { items: { add(f: unknown): void } };
        File: new (parts: unknown[], name: string, o: { type: string }) => unknown;
        ClipboardEvent: new (type: string, o: object) => unknown;
      };
      const dt = new g.DataTransfer();
      for (const f of fs) dt.items.add(new g.File([new Uint8Array(f.bytes)], f.name, { type: f.type }));
      (el as { dispatchEvent(e: unknown): void }).dispatchEvent(
        new g.ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true }),
      );
    },
    files.map((f) => ({ name: f.name, type: f.type, bytes: [...f.bytes] })),
  );
}

/** The status of a POST that only declares its length (its body never comes). */
function declared(path: string, length: number, cookie: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: w.port,
        method: 'POST',
        path,
        headers: {
          host: `127.0.0.1:${w.port}`,
          origin: w.origin,
          cookie,
          'content-type': 'application/json',
          'content-length': String(Math.floor(length)),
        },
      },
      (res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      },
    );
    req.on('error', reject);
    req.flushHeaders();
  });
}

describe('klaude web: the message box', () => {
  it('a draft survives a reload and a browser restart, per session, stays in the browser, and goes when sent', async () => {
    const a = await doneAgent('draft job A');
    const b = await doneAgent('draft job B');
    const dir = mkdtempSync(join(tmpdir(), 'klaude-profile-'));
    profiles.push(dir);
    let ctx = await persistent(dir);
    let page = await signedIn(ctx);
    await openSession(page, a);
    await page.getByTestId('message-input').fill('half a thought for A');
    await openSession(page, b);
    await page.getByTestId('message-input').fill('another for B');
    await page.reload();
    await page.locator('.conn.on').waitFor();
    await openSession(page, a);
    expect(await page.getByTestId('message-input').inputValue()).toBe('half a thought for A');
    await openSession(page, b);
    expect(await page.getByTestId('message-input').inputValue()).toBe('another for B');

    // The browser closed and opened again on its profile (a phone restarted).
    await ctx.close();
    ctx = await persistent(dir);
    page = await signedIn(ctx);
    await openSession(page, a);
    expect(await page.getByTestId('message-input').inputValue()).toBe('half a thought for A');
    // Kept in the page, never on the server.
    expect(fx.mock.requests.some((r) => JSON.stringify(r.body ?? '').includes('half a thought'))).toBe(false);
    const stored = await page.evaluate(() => {
      const ls = (globalThis as unknown as { localStorage: Record<string, string> & { getItem(k: string): string } })
        .localStorage;
      return Object.keys(ls)
        .filter((k) => k.startsWith('klaude.draft.'))
        .map((k) => ls.getItem(k))
        .sort();
    });
    expect(stored).toEqual(['another for B', 'half a thought for A']);

    // Sent: it reaches the agent and the draft is gone, also after a reload.
    await page.getByTestId('message-send').click();
    await fx.mock.waitForRequest((r) => r.prompt === 'half a thought for A', 60_000);
    await expect.poll(() => page.getByTestId('message-input').inputValue()).toBe('');
    await page.reload();
    await page.locator('.conn.on').waitFor();
    await openSession(page, a);
    expect(await page.getByTestId('message-input').inputValue()).toBe('');
    await openSession(page, b);
    expect(await page.getByTestId('message-input').inputValue()).toBe('another for B');
    await ctx.close();
  });

  it('an image pasted into the box reaches the stand-in as an image block; a picked one can be taken back', async () => {
    const id = await doneAgent('image job');
    const ctx = await desktopContext(browser);
    const page = await signedIn(ctx);
    await openSession(page, id);
    await paste(page, [{ name: 'shot.png', type: 'image/png', bytes: PNG }]);
    const thumbs = page.getByTestId('message-images').locator('img');
    await thumbs.first().waitFor();
    expect(await thumbs.count()).toBe(1);
    // Picked too, then taken back before sending.
    await page.getByTestId('image-pick').setInputFiles({ name: 'anim.gif', mimeType: 'image/gif', buffer: GIF });
    await expect.poll(() => thumbs.count()).toBe(2);
    await page.getByRole('button', { name: 'remove anim.gif' }).click();
    await expect.poll(() => thumbs.count()).toBe(1);
    // What is not one of the four kinds is refused in the page, in words.
    await paste(page, [{ name: 'shot.bmp', type: 'image/bmp', bytes: Buffer.from('BM not really') }]);
    await page
      .getByTestId('action-note')
      .getByText('is not a PNG, JPEG, GIF or WebP image', { exact: false })
      .waitFor();

    await page.getByTestId('message-input').fill('what is this?');
    await page.getByTestId('message-send').click();
    const req = await fx.mock.waitForRequest(
      (r) => r.images.length > 0 && r.prompt.startsWith('what is this?'),
      60_000,
    );
    expect(req.images).toHaveLength(1);
    expect(req.images[0]!.mediaType).toBe('image/png');
    expect(req.images[0]!.bytes.equals(PNG)).toBe(true);
    await expect.poll(() => thumbs.count()).toBe(0);
    await page.getByTestId('log').getByText('[image: png, 70 B]').waitFor({ timeout: 60_000 });
    await page.getByTestId('log').getByText('I see image/png of 70 bytes').waitFor({ timeout: 60_000 });
    await ctx.close();
  });

  it('dictation where the browser has speech recognition; no button where it has none', async () => {
    const id = await doneAgent('voice job');
    const withVoice = await desktopContext(browser);
    // A stand-in for the browser's recogniser (no microphone here): it hears one phrase.
    await withVoice.addInitScript(() => {
      class FakeRecognition {
        onresult: ((e: unknown) => void) | null = null;
        onend: (() => void) | null = null;
        onerror: unknown = null;
        lang = '';
        continuous = true;
        interimResults = true;
        start(): void {
          setTimeout(() => {
            const result = Object.assign([{ transcript: 'add a test for it' }], { isFinal: true });
            this.onresult?.({ resultIndex: 0, results: [result] });
            this.onend?.();
          }, 50);
        }
        stop(): void {}
      }
      const g = globalThis as unknown as Record<string, unknown>;
      g.SpeechRecognition = FakeRecognition;
      g.webkitSpeechRecognition = FakeRecognition;
    });
    let page = await signedIn(withVoice);
    await openSession(page, id);
    await page.getByTestId('message-input').fill('please');
    // Both buttons are drawn icons, not emoji: an emoji is a blank box where there is no emoji font.
    for (const button of [page.getByTestId('voice'), page.getByRole('button', { name: 'add an image' })]) {
      expect((await button.textContent())?.trim()).toBe('');
      expect((await button.locator('svg').boundingBox())?.width).toBeGreaterThan(10);
    }
    await page.getByTestId('voice').click();
    await expect.poll(() => page.getByTestId('message-input').inputValue()).toBe('please add a test for it');
    await withVoice.close();

    const without = await desktopContext(browser);
    await without.addInitScript(() => {
      const g = globalThis as unknown as Record<string, unknown>;
      delete g.webkitSpeechRecognition;
      delete g.SpeechRecognition;
    });
    page = await signedIn(without);
    await openSession(page, id);
    await page.getByTestId('message-input').waitFor();
    expect(await page.getByTestId('voice').count()).toBe(0);
    await without.close();
  });

  it("a codex agent's box offers no images, and the server refuses them for it; only the message route takes big bodies", async () => {
    const codex = createSession(svc.db, {
      projectId: svc.projectHash,
      type: 'general',
      runtime: 'codex',
      status: 'done',
      prompt: 'a codex job',
    }).id;
    const claude = await doneAgent('size job');
    const ctx = await desktopContext(browser);
    const page = await signedIn(ctx);
    await openSession(page, codex);
    expect(await page.getByTestId('image-pick').count()).toBe(0);
    await paste(page, [{ name: 'shot.png', type: 'image/png', bytes: PNG }]);
    await page.getByTestId('action-note').getByText('codex takes no images: only claude agents do').waitFor();
    expect(await page.getByTestId('message-images').count()).toBe(0);
    await ctx.close();

    const cookie = await signIn(w);
    const post = (id: string, route: string, body: unknown) =>
      http(w.port, 'POST', `/api/sessions/${id}/${route}`, { headers: { cookie, origin: w.origin }, body });
    const image = { name: 'shot.png', data: PNG.toString('base64') };
    const refused = await post(codex, 'message', { prompt: 'look', images: [image] });
    expect(JSON.parse(refused.body).error).toMatchObject({
      code: 'E_IMAGE_UNSUPPORTED',
      message: `${codex.slice(-8)} is a codex agent, and codex takes no images: only claude agents do`,
    });
    // A 5 MB image gets through the body limit and is refused as an image; other routes stay at 64 KiB.
    const big = { name: 'big.png', data: Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]).toString('base64') };
    const tooBig = await post(claude, 'message', { prompt: 'look', images: [big] });
    expect(JSON.parse(tooBig.body).error).toMatchObject({ code: 'E_IMAGE' });
    expect((await post(claude, 'interrupt', { pad: 'x'.repeat(100 * 1024) })).status).toBe(413);
    // Past the message route's own bound (five such images): refused as soon as the length is declared.
    expect(await declared(`/api/sessions/${claude}/message`, 5 * 7.5 * 1024 * 1024, cookie)).toBe(413);
    expect(await declared(`/api/sessions/${claude}/interrupt`, 65 * 1024, cookie)).toBe(413);
    expect(fx.mock.requests.some((r) => r.prompt === 'look')).toBe(false);
  });

  it("a running agent's row shows its progress and its pane the basis; a queued row its place and priority", async () => {
    const progress = { kind: 'todo', done: 2, total: 5, percent: 40, basis: 'its todo list (TodoWrite)' };
    const running = createSession(svc.db, {
      projectId: svc.projectHash,
      type: 'general',
      status: 'running',
      prompt: 'a seeded running job',
    }).id;
    svc.db.sqlite
      .prepare("UPDATE sessions SET run_started_at = ?, activity = 'Bash: npm test', progress = ? WHERE id = ?")
      .run(Date.now(), JSON.stringify(progress), running);
    const queued = createSession(svc.db, {
      projectId: svc.projectHash,
      type: 'general',
      status: 'queued',
      prompt: 'a seeded queued job',
      priority: 1,
    }).id;
    svc.db.sqlite.prepare('UPDATE sessions SET queued_at = ?, queue_order = ? WHERE id = ?').run(1, 1, queued);
    const ctx = await desktopContext(browser);
    const page = await signedIn(ctx);
    const row = page.locator(`[data-testid=session-row][data-session="${running}"]`);
    await row.getByTestId('row-progress').getByText('2/5').waitFor();
    expect(await row.getByTestId('row-progress').getAttribute('title')).toBe('its todo list (TodoWrite)');
    await openSession(page, running);
    await page.getByTestId('pane-progress').getByText('its todo list (TodoWrite)', { exact: false }).waitFor();
    const q = page.locator(`[data-testid=session-row][data-session="${queued}"]`);
    await q.getByTestId('row-state').getByText('queued #1 · high').waitFor();
    await ctx.close();
    svc.db.sqlite.prepare("UPDATE sessions SET status = 'cancelled' WHERE id IN (?, ?)").run(running, queued);
  });
});

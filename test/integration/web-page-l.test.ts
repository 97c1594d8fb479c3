// The web page's list, start form and terminal as a person meets them: a running row keeps its
// title with the activity under it; a queued one says its place ("queued #1") with no clock; an
// idle one says when it last moved; two projects of the same folder name are told apart by the
// shortest tail of their paths; children hang off their parent by connector lines; the start form
// labels its fields and offers only the project's agent types; header buttons and the worktree
// checkbox are thumb-sized; in phone landscape a row's numbers take one line. The terminal (a real
// PTY session): view-only it fits its box (smaller font, or a visible sideways scroll on a phone),
// and taken over, Ctrl-] leaves it for Release.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectHash } from '../../src/config/paths.js';
import { openDb } from '../../src/db/client.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { spawnPtyHost } from '../../src/pty/launch.js';
import { desktopContext, launchChromium, phoneContext } from '../support/browser.js';
import { KLAUDE_CLI, runKlaude } from '../support/klaude-bin.js';
import { startMockAnthropic, type MockAnthropic } from '../support/mock-anthropic.js';
import { READY, supervisorHome, writeConfig } from '../e2e/supervisor-helpers.js';
import { CLAUDE_BIN } from '../support/claude-bin.js';
import { sessionWithConversation, stopHosts } from '../e2e/talk-helpers.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { freshUrl, startWeb, type WebServer } from '../support/web-client.js';

let browser: Browser;
let home: TempHome;
let w: WebServer;
let first = true;
const ids: Record<string, string> = {};
const SHOTS = process.env.KLAUDE_SHOTS_DIR;

function seed(h: TempHome): void {
  const other = join(h.root, 'other', 'project');
  mkdirSync(other, { recursive: true });
  mkdirSync(join(h.projectDir, '.claude', 'agents'), { recursive: true });
  writeFileSync(
    join(h.projectDir, '.claude', 'agents', 'reviewer.md'),
    '---\nname: reviewer\ndescription: reviews changes\n---\nReview the change.\n',
  );
  const db = openDb(h.klaudeHome);
  try {
    const main = projectHash(h.projectDir);
    const second = projectHash(other);
    ensureProject(db, { hash: main, rootPath: h.projectDir });
    ensureProject(db, { hash: second, rootPath: other });
    const now = Date.now();
    type Opts = Partial<Parameters<typeof createSession>[1]>;
    const mk = (key: string, projectId: string, o: Opts): string =>
      (ids[key] = createSession(db, { projectId, type: 'general', runtime: 'claude', ...o }).id);
    mk('running', main, { status: 'running', title: 'hang one', prompt: 'hang one' });
    updateSession(db, ids.running!, { activity: 'Bash: sleep 600', runStartedAt: now - 65_000 });
    mk('child', main, { status: 'done', title: 'the child', parentId: ids.running! });
    mk('child2', main, { status: 'done', title: 'the second child', parentId: ids.running! });
    mk('grandchild', main, { status: 'done', title: 'the grandchild', parentId: ids.child! });
    mk('queued', main, { status: 'queued', title: 'waits its turn' });
    updateSession(db, ids.queued!, { queuedAt: now });
    mk('idle', main, { status: 'idle', title: 'talk session', runtime: 'claude' });
    updateSession(db, ids.idle!, { runStartedAt: null, updatedAt: now - 3 * 60_000 - 5_000 });
    mk('elsewhere', second, { status: 'done', title: 'in the other project' });
  } finally {
    db.close();
  }
}

beforeAll(async () => {
  browser = await launchChromium();
  home = makeTempHome({ prefix: 'klaude-webl-' });
  seed(home);
  w = await startWeb(home.env, home.projectDir);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (home) await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir });
  home?.cleanup();
});

async function open(kind: 'phone' | 'desktop' | 'landscape'): Promise<Page> {
  const ctx =
    kind === 'phone'
      ? await phoneContext(browser, w.origin)
      : kind === 'desktop'
        ? await desktopContext(browser)
        : await browser.newContext({ viewport: { width: 844, height: 390 }, isMobile: true, hasTouch: true });
  const page = await ctx.newPage();
  await page.goto(first ? w.url : freshUrl(w));
  first = false;
  await page.locator(`[data-session="${ids.running}"]`).waitFor();
  return page;
}

const row = (page: Page, key: string) => page.locator(`[data-testid=session-row][data-session="${ids[key]}"]`);
const shot = async (page: Page, name: string, fullPage = true): Promise<void> =>
  void (SHOTS ? await page.screenshot({ path: join(SHOTS, name), fullPage }) : undefined);

describe('klaude web: the list (seeded, no claude)', () => {
  it('phone: rows keep their title, queued says its place, idle says when; projects told apart', async () => {
    const page = await open('phone');
    await shot(page, 'phone-list.png');
    const running = row(page, 'running');
    expect(await running.getByTestId('row-title').innerText()).toBe('hang one');
    expect(await running.getByTestId('row-activity').innerText()).toBe('Bash: sleep 600');
    expect(await running.getByTestId('row-time').innerText()).toMatch(/^1:\d\d$/);
    expect(await row(page, 'queued').getByTestId('row-state').innerText()).toBe('queued #1');
    expect(await row(page, 'queued').getByTestId('row-time').count()).toBe(0);
    expect(await row(page, 'idle').getByTestId('row-state').innerText()).toBe('idle');
    expect(await row(page, 'idle').getByTestId('row-time').innerText()).toBe('3m ago');
    const names = await page.getByTestId('project-name').allInnerTexts();
    expect(names).toHaveLength(2);
    expect(new Set(names).size).toBe(2);
    expect(names).toContain('other/project');
    // The tree: a child hangs off its parent; a non-last child's line goes on to its sibling.
    const child = page.locator('.node').filter({ has: row(page, 'child') });
    expect(await child.locator('.elbow.more').count()).toBe(1);
    const grand = page.locator('.node').filter({ has: row(page, 'grandchild') });
    expect(await grand.locator('.rail.at-1').count()).toBe(1);
    expect(await grand.locator('.elbow.at-2').count()).toBe(1);
    // Header buttons: ≥ 40 px and on one line.
    for (const b of await page.locator('header.top button').all()) {
      const box = (await b.boundingBox())!;
      expect(box.height).toBeGreaterThanOrEqual(40);
      expect(box.height).toBeLessThan(48);
    }
    await page.context().close();
  });

  it('phone: the start form labels its fields and offers only the project’s agent types', async () => {
    const page = await open('phone');
    await page.getByTestId('start-open').click();
    const project = page.getByLabel('Project');
    await project.selectOption(projectHash(home.projectDir));
    const type = page.getByLabel('Agent type');
    expect(await type.locator('option').allInnerTexts()).toEqual(['general', 'reviewer']);
    await type.selectOption('reviewer');
    await page.getByLabel('What should it do?').fill('look at it');
    await expect(page.getByLabel('Model (optional)').count()).resolves.toBe(1);
    const check = (await page.locator('label.check').boundingBox())!;
    expect(check.height).toBeGreaterThanOrEqual(40);
    await shot(page, 'phone-start-form.png');
    // The other project has no reviewer: its picker offers general alone.
    await project.selectOption({ label: 'other/project' });
    expect(await type.locator('option').allInnerTexts()).toEqual(['general']);
    expect(await type.inputValue()).toBe('general');
    await page.context().close();
  });

  it('phone landscape: a compact header and each row’s numbers on one line', async () => {
    const page = await open('landscape');
    await shot(page, 'landscape-list.png');
    const nums = (await row(page, 'running').locator('.nums').boundingBox())!;
    expect(nums.height).toBeLessThan(24);
    const top = (await page.locator('header.top').boundingBox())!;
    expect(top.height).toBeLessThanOrEqual(50);
    await page.context().close();
  });
});

describe('klaude web: the terminal of a PTY session (real claude)', () => {
  let mock: MockAnthropic;
  let th: TempHome;
  let tw: WebServer;
  let session: { id: string };
  let firstLink = true;

  beforeAll(async () => {
    mock = await startMockAnthropic();
    th = supervisorHome(mock);
    writeConfig(th, `claude:\n  binary: ${CLAUDE_BIN}\n`);
    session = await sessionWithConversation(th, 'web-l-marker');
    await spawnPtyHost({
      home: th.klaudeHome,
      sessionId: session.id,
      inv: { node: process.execPath, cli: KLAUDE_CLI },
      env: th.env,
      cwd: th.projectDir,
      size: { cols: 100, rows: 30 },
    });
    tw = await startWeb(th.env, th.projectDir);
  }, 90_000);

  afterAll(async () => {
    if (th) await runKlaude(['web', '--stop'], { env: th.env, cwd: th.projectDir });
    if (th && session) await stopHosts(th, session.id);
    await mock?.close();
    th?.cleanup();
  });

  async function openTerm(kind: 'phone' | 'desktop' | 'landscape'): Promise<Page> {
    const ctx =
      kind === 'phone'
        ? await phoneContext(browser, tw.origin)
        : kind === 'desktop'
          ? await desktopContext(browser)
          : await browser.newContext({ viewport: { width: 844, height: 390 }, isMobile: true, hasTouch: true });
    const page = await ctx.newPage();
    await page.goto(firstLink ? tw.url : freshUrl(tw));
    firstLink = false;
    await page.locator(`[data-testid=session-row][data-session="${session.id}"]`).click();
    await page.locator('[data-testid=term-mode][data-mode=view]').waitFor({ timeout: 20_000 });
    await page.getByTestId('terminal').getByText(READY).waitFor({ timeout: 45_000 });
    return page;
  }

  // Evaluated in the page (strings: the tests compile without the DOM's types).
  const BOX = "document.querySelector('[data-testid=terminal]')";
  const FONT = `parseFloat(getComputedStyle(${BOX}.querySelector('.xterm-rows')).fontSize)`;
  const FITS = `${BOX}.querySelector('.xterm-screen').getBoundingClientRect().width <= ${BOX}.clientWidth`;

  /** The terminal box's width and scroll width, and the font size xterm draws with. */
  const measure = (page: Page) =>
    page.evaluate(`({ room: ${BOX}.clientWidth, scroll: ${BOX}.scrollWidth, font: ${FONT} })`) as Promise<{
      room: number;
      scroll: number;
      font: number;
    }>;

  it('view-only, 100 columns fit the desktop box; on a phone the font stops at its minimum and it scrolls sideways', async () => {
    const desk = await openTerm('desktop');
    await desk.waitForFunction(FITS);
    const d = await measure(desk);
    expect(d.font).toBeLessThan(13);
    expect(d.font).toBeGreaterThanOrEqual(7);
    expect(await desk.getByTestId('term-wide').count()).toBe(0);
    await shot(desk, 'desk-terminal-view.png');
    await desk.context().close();

    const phone = await openTerm('phone');
    await phone.waitForFunction(`${FONT} === 7`);
    const p = await measure(phone);
    expect(p.scroll).toBeGreaterThan(p.room);
    await phone.getByTestId('term-wide').waitFor();
    await shot(phone, 'phone-terminal-view.png');
    await phone.context().close();
  });

  it('taken over, Ctrl-] leaves the terminal for Release (said on screen), and Enter there releases it', async () => {
    const page = await openTerm('desktop');
    await page.getByTestId('take-over').click();
    await page.locator('[data-testid=term-mode][data-mode=control]').waitFor();
    expect(await page.getByTestId('term-mode').innerText()).toContain('Ctrl-] leaves the terminal');
    await page.keyboard.press('Control+BracketRight');
    await page.waitForFunction("document.activeElement?.getAttribute('data-testid') === 'release'");
    await shot(page, 'desk-terminal-left.png');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid=term-mode][data-mode=view]').waitFor();
    await page.context().close();
  });

  it('phone landscape: taken over, the mode row and claude’s prompt line are both on screen', async () => {
    const page = await openTerm('landscape');
    await page.getByTestId('take-over').click();
    await page.locator('[data-testid=term-mode][data-mode=control]').waitFor();
    await page.getByTestId('terminal').getByText(READY).waitFor();
    const height = page.viewportSize()!.height;
    const mode = (await page.getByTestId('term-mode').boundingBox())!;
    const hint = (await page.getByTestId('terminal').getByText(READY).boundingBox())!;
    await shot(page, 'landscape-terminal-control.png', false);
    expect(mode.y).toBeGreaterThanOrEqual(0);
    expect(hint.y + hint.height).toBeLessThanOrEqual(height);
    await page.getByTestId('release').click();
    await page.context().close();
  });
});

// The web page in a real Chromium (phone 390×844 and desktop), against the real claude and the
// Messages-API stand-in: the tree appears, streamed text grows, a permission request shows in
// "needs you" with its command, approve lets the agent go on (recorded as the person's, from the
// web), deny with a reason reaches the model, and message, interrupt and start work from the page.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentServices } from '../../src/agent-ops/context.js';
import { startAgents } from '../../src/agent-ops/start.js';
import { approvalsOf } from '../../src/db/repos/approvals.js';
import { getSession } from '../../src/db/repos/sessions.js';
import { desktopContext, launchChromium, phoneContext } from '../support/browser.js';
import { KLAUDE_CLI, REPO_ROOT, runKlaude } from '../support/klaude-bin.js';
import { until } from '../support/until.js';
import type { WebServer } from '../support/web-client.js';
import { useAgentHomes, type AgentHome } from './agent-home.js';

const SLOW = Array.from({ length: 12 }, (_, i) => `line ${i + 1} of a slow reply`).join('\n');
const fx = useAgentHomes({
  responder: (r) => {
    if (r.isToolResult)
      return {
        text: `Tool said: ${r.toolResults.map((t) => `${t.isError ? 'error' : 'ok'}:${t.content}`).join(' ')}`,
      };
    if (r.prompt.startsWith('run: '))
      return { bash: { command: r.prompt.slice(5), description: 'asked' }, text: 'Running it.' };
    if (r.prompt.startsWith('slow')) return { text: SLOW, chunks: 12, delayMs: 400 };
    if (r.prompt.startsWith('hang')) return { hang: true };
    return { text: `Reply to: ${r.prompt}` };
  },
});
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});

afterAll(async () => {
  await browser?.close();
});

async function setup(config = ''): Promise<{ home: AgentHome; svc: AgentServices; w: WebServer }> {
  const home = fx.home({ prefix: 'klaude-webpage-', config });
  return { home, svc: home.services(), w: await home.web() };
}

async function start(svc: AgentServices, prompt: string): Promise<string> {
  const r = await startAgents(svc, { type: 'general', prompt });
  return r.sessions[0]!.id;
}

/** The README's screenshots come from these runs: KLAUDE_WEB_SCREENSHOTS=1 writes them to assets/. */
async function shot(page: Page, name: string): Promise<void> {
  if (process.env.KLAUDE_WEB_SCREENSHOTS === '1') await page.screenshot({ path: join(REPO_ROOT, 'assets', name) });
}

const statusOf = (svc: AgentServices, id: string): string => getSession(svc.db, id)?.status ?? '';

async function openPage(w: WebServer, phone: boolean): Promise<Page> {
  const ctx = phone ? await phoneContext(browser, w.origin) : await desktopContext(browser);
  // The browser's notifications, recorded (a headless Chromium shows none).
  await ctx.addInitScript(() => {
    const w = globalThis as unknown as { __notes: string[]; Notification: unknown };
    w.__notes = [];
    w.Notification = class {
      static permission = 'granted';
      static requestPermission = (): Promise<string> => Promise.resolve('granted');
      constructor(title: string) {
        w.__notes.push(title);
      }
    };
  });
  const page = await ctx.newPage();
  await page.goto(w.url);
  // Signed in, and the live state streaming (the dot turns on when the event stream opens).
  await page.locator('.conn.on').waitFor();
  await page.getByTestId('tree').waitFor({ state: 'attached' });
  return page;
}

describe('klaude web: the page', () => {
  it('phone: the tree, a permission request in needs-you, approve → the agent goes on (the person, from the web)', async () => {
    const { svc, w } = await setup();
    const page = await openPage(w, true);
    const id = await start(svc, 'run: python3 -c "print(6*7)"');
    await page.locator(`[data-testid=session-row][data-session="${id}"]`).waitFor();
    const need = page.locator(`[data-testid=need][data-session="${id}"]`);
    await need.waitFor({ timeout: 60_000 });
    await expect(need.textContent()).resolves.toContain('python3 -c "print(6*7)"');
    expect(await page.title()).toMatch(/^\(1\) klaude/);
    // A notification when it started waiting (the page was open before).
    await page.waitForFunction(() =>
      (globalThis as unknown as { __notes: string[] }).__notes.some((n) => n.includes('needs you')),
    );
    await shot(page, 'web-phone.png');
    await need.getByTestId('approve').click();
    await until('the agent ends done', () => statusOf(svc, id) === 'done', 60_000);
    expect(approvalsOf(svc.db, id)[0]).toMatchObject({
      answer: 'allow',
      answeredBy: expect.stringMatching(/^person \(web: signed in from 127\.0\.0\.1, link made /),
    });
    await page.locator(`[data-testid=session-row][data-session="${id}"]`).click();
    await page.getByTestId('log').getByText('Tool said: ok:42').waitFor();
    await need.waitFor({ state: 'detached' });
  });

  it('phone: deny with a reason reaches the model', async () => {
    const { svc, w } = await setup();
    const id = await start(svc, 'run: python3 -c "print(1)"');
    const page = await openPage(w, true);
    const need = page.locator(`[data-testid=need][data-session="${id}"]`);
    await need.waitFor({ timeout: 60_000 });
    await need.getByTestId('deny-open').click();
    await need.getByTestId('deny-reason').fill('not on a Friday');
    await need.getByTestId('deny').click();
    await until('the agent ends', () => ['done', 'idle'].includes(statusOf(svc, id)), 60_000);
    const seen = fx.mock.requests.filter((r) => r.isToolResult).flatMap((r) => r.toolResults);
    expect(seen.some((t) => t.isError && t.content.includes('not on a Friday'))).toBe(true);
    expect(approvalsOf(svc.db, id)[0]).toMatchObject({
      answer: 'deny',
      answeredBy: expect.stringMatching(/^person \(web: signed in from 127\.0\.0\.1, link made /),
    });
  });

  it('desktop: streamed text grows in the page, then message and interrupt from the page', async () => {
    const { svc, w } = await setup();
    const id = await start(svc, 'slow please');
    const page = await openPage(w, false);
    await page.locator(`[data-testid=session-row][data-session="${id}"]`).click();
    // Seen while it is being written: the first lines, not yet the last, in a growing item.
    const growing = page.locator('[data-testid=log-text].streaming').filter({ hasText: 'line 2 of' });
    await growing.waitFor({ timeout: 60_000 });
    const first = (await growing.textContent()) ?? '';
    expect(first).not.toContain('line 12');
    await page.getByTestId('log-text').filter({ hasText: 'line 9 of' }).waitFor({ timeout: 60_000 });
    await shot(page, 'web-desktop.png');
    await until('the slow turn ends', () => statusOf(svc, id) === 'done', 60_000);
    await page.getByTestId('message-input').fill('hang on');
    await page.getByTestId('message-send').click();
    await until('the agent runs again', () => statusOf(svc, id) === 'running', 60_000);
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('interrupt').click();
    await until('the agent is interrupted', () => statusOf(svc, id) === 'interrupted', 60_000);
    await page.getByTestId('log').getByText('hang on').waitFor();
  });

  it("desktop: a worktree agent's diff per file, then merge from the page", async () => {
    const { home, svc, w } = await setup('agents:\n  allowedTools: [Bash]\n');
    const git = (...args: string[]): string =>
      execFileSync('git', ['-c', 'user.name=P', '-c', 'user.email=p@example.com', ...args], {
        cwd: home.projectDir,
        env: home.env,
        encoding: 'utf8',
      });
    git('init', '-q', '-b', 'main');
    writeFileSync(join(home.projectDir, 'base.txt'), 'base\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'base');
    const r = await startAgents(svc, {
      type: 'general',
      prompt: 'run: echo hello-from-web > made.txt',
      worktree: true,
    });
    const id = r.sessions[0]!.id;
    await until('the agent ends done', () => statusOf(svc, id) === 'done', 60_000);
    const page = await openPage(w, false);
    await page.locator(`[data-testid=session-row][data-session="${id}"]`).click();
    await page.getByTestId('diff-toggle').click();
    const file = page.getByTestId('diff-file').filter({ hasText: 'made.txt' });
    await file.waitFor();
    await file.getByText('+hello-from-web').waitFor();
    page.once('dialog', (d) => void d.accept());
    await page.getByTestId('merge').click();
    await page
      .getByTestId('action-note')
      .getByText(/merged \S+ into main \(1 file: made\.txt\)/)
      .waitFor();
    expect(readFileSync(join(home.projectDir, 'made.txt'), 'utf8')).toBe('hello-from-web\n');
  });

  it('phone: start an agent from the page', async () => {
    const { svc, w } = await setup();
    await start(svc, 'hello');
    const page = await openPage(w, true);
    await page.getByTestId('start-open').click();
    await page.getByTestId('start-prompt').fill('from the phone');
    await page.getByTestId('start-submit').click();
    await page.getByTestId('session-pane').getByText('Reply to: from the phone').waitFor({ timeout: 60_000 });
  });

  it('desktop: the start form takes a priority and the sandbox, as `klaude start` does', async () => {
    const { home, w } = await setup();
    const page = await openPage(w, false);
    await page.getByTestId('start-open').click();
    await page.getByTestId('start-prompt').fill('low and loose');
    await page.getByTestId('start-priority').selectOption('low');
    await page.getByTestId('start-sandbox').selectOption('off');
    await page.getByTestId('start-submit').click();
    await page.getByTestId('session-pane').getByText('Reply to: low and loose').waitFor({ timeout: 60_000 });
    const rows = JSON.parse((await home.k(['sessions', '--json'])).stdout) as {
      prompt: string;
      priority: string;
      sandbox: string | null;
    }[];
    expect(rows.find((r) => r.prompt === 'low and loose')).toMatchObject({
      priority: 'low',
      sandbox: expect.stringMatching(/^unsandboxed: --no-sandbox/) as unknown,
    });
  });
});

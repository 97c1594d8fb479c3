// The session pane of `klaude web` against a seeded home (no real claude): the log scrolls in its
// own area under the actions, search marks and counts, the log's words, the end marker, merge and
// archive of a worktree agent, messages (kept when refused, "queued" when the turn runs), a queued
// agent's Cancel, a PTY session's missing message box, a failure's card, Deny… by keyboard, and
// the diff's header lines in words.
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Browser, Locator, Page, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sessionLogPath } from '../../src/config/paths.js';
import { addApproval } from '../../src/db/repos/approvals.js';
import { recordProcess } from '../../src/db/repos/processes.js';
import { createSession, getSession, updateSession } from '../../src/db/repos/sessions.js';
import { readable, splitPatch } from '../../src/web/page/diff-words.js';
import { desktopContext, launchChromium, phoneContext } from '../support/browser.js';
import { runKlaude } from '../support/klaude-bin.js';
import { seedProject, type Seeded } from '../support/seed-sessions.js';
import { makeTempHome, type TempHome } from '../support/temp-home.js';
import { until } from '../support/until.js';
import { freshUrl, startWeb, type WebServer } from '../support/web-client.js';

let browser: Browser;
let home: TempHome;
let seeded: Seeded;
let w: WebServer;
const ids: Record<string, string> = {};
let ptyHost: ChildProcess | undefined;
const SHOTS = process.env.KLAUDE_SHOTS;

function writeLog(id: string, events: object[]): void {
  const log = sessionLogPath(home.klaudeHome, seeded.hash, id, null);
  mkdirSync(dirname(log), { recursive: true });
  for (const e of events) appendFileSync(log, `${JSON.stringify({ ts: Date.now(), ...e })}\n`);
}

const reply = Array.from({ length: 60 }, (_, i) => `line ${i + 1}${i % 7 === 3 ? ' NEEDLE here' : ''}`).join('\n');

function seed(): void {
  const db = seeded.db;
  const make = (key: string, o: Parameters<typeof createSession>[1]): string => (ids[key] = createSession(db, o).id);
  const p = seeded.hash;
  make('long', { projectId: p, type: 'general', status: 'done', prompt: 'long one' });
  writeLog(ids.long!, [
    { type: 'user', text: 'long one', source: 'start' },
    { type: 'approval_request', requestId: 'r1', tool: 'Bash', summary: 'rm -rf x' },
    { type: 'approval_answer', requestId: 'r1', behavior: 'deny', by: 'person (web)', message: 'not now' },
    { type: 'approval_request', requestId: 'r2', tool: 'Bash', summary: 'ls' },
    { type: 'approval_answer', requestId: 'r2', behavior: 'allow', by: 'person (web)' },
    { type: 'user', text: '[RESUME] Your previous run stopped in the middle of a turn', source: 'recover' },
    { type: 'text', text: reply },
    { type: 'done', status: 'done' },
  ]);
  make('wt', { projectId: p, type: 'general', status: 'running', prompt: 'in a worktree' });
  updateSession(db, ids.wt!, { worktreeBranch: 'klaude/wt-1', worktreePath: `${home.root}/wt-1` });
  make('run', { projectId: p, type: 'general', status: 'running', prompt: 'running one' });
  make('queued', { projectId: p, type: 'general', status: 'queued', prompt: 'queued one' });
  writeLog(ids.queued!, [{ type: 'queued', position: 1 }]);
  make('pty', { projectId: p, type: 'tui', status: 'idle', prompt: 'talk session' });
  // A live process of its own stands for the PTY server: this test's process (the browser's parent)
  // recorded as one would make the browser a process inside an agent, whose sign-in is refused.
  ptyHost = spawn('sleep', ['600'], { stdio: 'ignore' });
  recordProcess(db, { klaudeSessionId: ids.pty!, pid: ptyHost.pid!, kind: 'pty' });
  make('failed', { projectId: p, type: 'general', status: 'failed', prompt: 'fail please' });
  updateSession(db, ids.failed!, { error: 'gemini exited with code 41' });
  make('ask', { projectId: p, type: 'general', status: 'waiting', prompt: 'asks' });
  make('reviewer', { projectId: p, type: 'general', status: 'done', prompt: 'review it', reviewOf: ids.long! });
  addApproval(db, { sessionId: ids.ask!, requestId: 'q1', toolName: 'Bash', summary: 'touch x' });
}

beforeAll(async () => {
  browser = await launchChromium();
  home = makeTempHome({ prefix: 'klaude-webk-' });
  seeded = seedProject(home);
  seed();
  w = await startWeb(home.env, home.projectDir);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  ptyHost?.kill();
  await runKlaude(['web', '--stop'], { env: home.env, cwd: home.projectDir });
  seeded?.db.close();
  home?.cleanup();
});

async function openPage(phone = false): Promise<Page> {
  const ctx = phone ? await phoneContext(browser, w.origin) : await desktopContext(browser);
  const page = await ctx.newPage();
  await page.goto(freshUrl(w));
  await page.locator('.conn.on').waitFor();
  return page;
}

async function openSession(page: Page, key: string): Promise<void> {
  await page.locator(`[data-testid=session-row][data-session="${ids[key]}"]`).click();
  await page.locator(`[data-testid=session-pane][data-session="${ids[key]}"]`).waitFor();
}

const shot = async (page: Page, name: string): Promise<void> => {
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/${name}.png` });
};

/** A computed style, read in the page (this tsconfig has no DOM types: the page's global typed here). */
type WithStyles = { getComputedStyle: (el: unknown) => Record<string, string> };
const styleOf = (l: Locator, prop: string): Promise<string> =>
  l.evaluate((el, p) => (globalThis as unknown as WithStyles).getComputedStyle(el)[p]!, prop);

const json = (route: Route, status: number, body: object): Promise<void> =>
  route.fulfill({ status, contentType: 'application/json', body: JSON.stringify(body) });

describe('klaude web: the session pane', () => {
  it('a long log scrolls under the actions and the search, which stay in view', async () => {
    for (const phone of [false, true]) {
      const page = await openPage(phone);
      await openSession(page, 'long');
      await page.getByTestId('log-text').filter({ hasText: 'line 60' }).waitFor();
      const view = page.viewportSize()!;
      for (const id of ['archive', 'message-input', 'log-search']) {
        const box = (await page.getByTestId(id).boundingBox())!;
        expect(box.y, id).toBeGreaterThanOrEqual(0);
        expect(box.y + box.height, id).toBeLessThanOrEqual(view.height);
      }
      // Followed to its end: the last line is in view.
      const last = (await page.locator('.item.note.done').boundingBox())!;
      expect(last.y + last.height).toBeLessThanOrEqual(view.height + 1);
      await shot(page, `k-long-log-${phone ? 'phone' : 'desk'}`);
      await page.context().close();
    }
  });

  it('search marks every match, counts them, steps through them, and says when none', async () => {
    const page = await openPage();
    await openSession(page, 'long');
    await page.getByTestId('log-text').filter({ hasText: 'line 60' }).waitFor();
    await page.getByTestId('log-search').fill('needle');
    const count = page.getByTestId('log-search-count');
    await count.getByText('1 of 9').waitFor();
    expect(await page.locator('.log mark').count()).toBe(9);
    expect(await page.locator('.log mark.current').innerText()).toBe('NEEDLE');
    await page.getByTestId('log-search').press('Enter');
    await count.getByText('2 of 9').waitFor();
    await page.getByTestId('log-search').press('Shift+Enter');
    await page.getByTestId('log-search').press('Shift+Enter');
    await count.getByText('9 of 9').waitFor();
    // The log stays whole around the matches.
    await page.getByTestId('log-text').getByText('line 2', { exact: false }).first().waitFor();
    await shot(page, 'k-search');
    await page.getByTestId('log-search').fill('zzznotfound');
    await count.getByText('no matches').waitFor();
    await shot(page, 'k-search-none');
  });

  it("the log's words: answers by you, klaude's resume prompt apart, a readable end marker", async () => {
    const page = await openPage();
    await openSession(page, 'long');
    const log = page.getByTestId('log');
    await log.getByText('denied by you (web): not now').waitFor();
    await log.getByText('allowed by you (web)').waitFor();
    await log.getByText('klaude resumed it after its run stopped mid-turn').waitFor();
    await log.getByText('klaude resumed it after its run stopped mid-turn').scrollIntoViewIfNeeded();
    await shot(page, 'k-log-words');
    expect(await page.locator('.item.user').allInnerTexts()).toEqual(['› long one']);
    const end = page.locator('.item.note.done');
    expect(await end.innerText()).toBe('— done');
    expect(await styleOf(end, 'backgroundColor')).toBe('rgba(0, 0, 0, 0)');
    expect(await styleOf(end, 'color')).toBe('rgb(92, 196, 138)');
  });

  it('a worktree agent: branch in the header, Merge once finished, its outcome; archive asks first', async () => {
    const page = await openPage();
    await openSession(page, 'wt');
    await page.getByTestId('pane-worktree').getByText('klaude/wt-1').waitFor();
    await page.getByTestId('diff-toggle').waitFor();
    expect(await page.getByTestId('merge').count()).toBe(0);
    updateSession(seeded.db, ids.wt!, { status: 'done', endedAt: Date.now() });
    await page.getByTestId('merge').waitFor();

    let archived = 0;
    await page.route('**/api/sessions/*/archive', (r) => (archived++, json(r, 200, { result: [ids.wt] })));
    const patch =
      'diff --git a/a b/a\nnew file mode 100644\nindex 0000000..e69de29\ndiff --git a/b b/b\nnew file mode 100644\nindex 0000000..f272ef5\n--- /dev/null\n+++ b/b\n@@ -0,0 +1 @@\n+hello\n';
    const files = [
      { path: 'a', status: 'added', added: 0, deleted: 0 },
      { path: 'b', status: 'added', added: 1, deleted: 0 },
    ];
    await page.route('**/api/sessions/*/diff', (r) =>
      json(r, 200, { result: { files, patch, kind: 'worktree', branch: 'klaude/wt-1', note: null } }),
    );
    const asked: string[] = [];
    page.on('dialog', (d) => {
      asked.push(d.message());
      void (d.message().startsWith('Merge') ? d.accept() : d.dismiss());
    });
    await page.getByTestId('archive').click();
    await until('archive asks', () => asked.length === 1);
    expect(asked[0]).toMatch(/branch klaude\/wt-1 has changes in 2 files\. Archive it anyway\?/);
    expect(archived).toBe(0);

    await page.getByTestId('diff-toggle').click();
    const diff = page.getByTestId('diff');
    await diff.getByText('new empty file').waitFor();
    await diff.getByText('+hello').waitFor();
    expect(await diff.innerText()).not.toMatch(/index |mode 100644|\+\+\+ /);
    await shot(page, 'k-diff');
    await page.getByTestId('diff-toggle').click();

    const outcomes = [
      { branch: 'klaude/wt-1', into: 'main', committedWork: false, result: 'merged', files: ['a', 'b'] },
      { branch: 'klaude/wt-1', into: 'main', committedWork: false, result: 'up-to-date', files: [] },
    ];
    await page.route('**/api/sessions/*/merge', (r) => json(r, 200, { result: outcomes.shift() }));
    await page.getByTestId('merge').click();
    await page.getByTestId('action-note').getByText('merged klaude/wt-1 into main (2 files: a, b)').waitFor();
    await shot(page, 'k-merged');
    await page.getByTestId('merge').click();
    await page.getByTestId('action-note').getByText('already merged: klaude/wt-1 has nothing main lacks').waitFor();

    // Archived (merged: no question): the server's sentence about the worktree it kept is shown.
    const note = "kept WT000001's worktree: 1 uncommitted file (klaude merge WT000001, or prune --force to drop them)";
    await page.route('**/api/sessions/*/archive', (r) =>
      json(r, 200, { result: { sessions: [ids.wt], worktrees: [], note } }),
    );
    await page.getByTestId('archive').click();
    await page.getByTestId('action-note').getByText(`archived; ${note}`).waitFor();
  });

  it('a refused message stays in the box (in red); a queued one says so, shows pending, and Interrupt warns', async () => {
    const page = await openPage(true);
    await openSession(page, 'run');
    let answer: [number, object] = [409, { error: { code: 'E_SESSION_BUSY', message: 'it is busy' } }];
    await page.route('**/api/sessions/*/message', (r) => json(r, ...answer));
    await page.getByTestId('message-input').fill('please also update the README');
    await page.getByTestId('message-send').click();
    const note = page.getByTestId('action-note');
    await note.getByText('it is busy', { exact: false }).waitFor();
    expect(await note.getAttribute('class')).toContain('error');
    expect(await styleOf(note, 'color')).toBe('rgb(232, 103, 90)');
    expect(await page.getByTestId('message-input').inputValue()).toBe('please also update the README');

    answer = [200, { result: { delivered: 'stdin', pid: 1, nativeSessionId: null } }];
    await page.getByTestId('message-send').click();
    await note.getByText('queued: it gets this when its current turn ends').waitFor();
    await page.getByTestId('log-pending').getByText('please also update the README').waitFor();
    expect(await page.getByTestId('message-input').inputValue()).toBe('');
    await shot(page, 'k-message-queued');

    await page.route('**/api/sessions/*/interrupt', (r) =>
      json(r, 200, { result: { dropped: ['please also update the README'] } }),
    );
    let asked = '';
    page.once('dialog', (d) => ((asked = d.message()), void d.accept()));
    await page.getByTestId('interrupt').click();
    await note.getByText('back in the box', { exact: false }).waitFor();
    expect(asked).toMatch(/still queued.*will not be sent/s);
    expect(await page.getByTestId('message-input').inputValue()).toBe('please also update the README');
  });

  it("a queued agent's Interrupt is Cancel, with its own confirm", async () => {
    const page = await openPage(true);
    await openSession(page, 'queued');
    const cancel = page.getByTestId('interrupt');
    expect(await cancel.innerText()).toBe('Cancel');
    let asked = '';
    page.once('dialog', (d) => ((asked = d.message()), void d.accept()));
    await cancel.click();
    await page.getByTestId('action-note').getByText('cancelled: it left the queue', { exact: false }).waitFor();
    expect(asked).toMatch(/^Cancel general .*never starts/);
    expect(getSession(seeded.db, ids.queued!)?.status).toBe('cancelled');
  });

  it("a reviewer's pane links to the session it reviews; an interactive session is named claude", async () => {
    const page = await openPage(true);
    await openSession(page, 'reviewer');
    await page.getByTestId('review-of-link').click();
    await page.locator(`[data-testid=session-pane][data-session="${ids.long}"]`).waitFor();
    // (`tui` is the inside name: the dashboard and `klaude sessions` say claude)
    const pty = page.locator(`[data-testid=session-row][data-session="${ids.pty}"]`);
    expect(await pty.locator('.name b').innerText()).toBe('claude');
    await page.context().close();
  });

  it('on a small phone (320 px) every header button is on screen', async () => {
    const ctx = await browser.newContext({ viewport: { width: 320, height: 640 }, isMobile: true, hasTouch: true });
    const page = await ctx.newPage();
    await page.goto(freshUrl(w));
    await page.locator('.conn.on').waitFor();
    for (const b of await page.locator('header.top button').all()) {
      const box = (await b.boundingBox())!;
      expect([await b.innerText(), box.x >= 0 && box.x + box.width <= 320]).toEqual([await b.innerText(), true]);
    }
    expect(await page.evaluate(() => (globalThis as unknown as { innerWidth: number }).innerWidth)).toBe(320);
    await ctx.close();
  });

  it('a PTY session offers no message box', async () => {
    const page = await openPage();
    await openSession(page, 'pty');
    await page.getByTestId('terminal-toggle').waitFor();
    expect(await page.getByTestId('message-input').count()).toBe(0);
  });

  it('Needs you: a failure in red with Archive; Deny… moves focus to the reason', async () => {
    const page = await openPage(true);
    const need = page.locator(`[data-testid=need][data-session="${ids.failed}"]`);
    const why = need.getByTestId('need-failed');
    await why.waitFor();
    expect(await styleOf(why, 'color')).toBe('rgb(232, 103, 90)');
    await shot(page, 'k-needs-failed');

    const ask = page.locator(`[data-testid=need][data-session="${ids.ask}"]`);
    await ask.getByTestId('deny-open').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('kbd reason');
    expect(await ask.getByTestId('deny-reason').inputValue()).toBe('kbd reason');

    await need.getByTestId('need-archive').click();
    await need.waitFor({ state: 'detached' });
    expect(getSession(seeded.db, ids.failed!)?.archivedAt).toBeTruthy();
  });
});

describe('the diff in words', () => {
  const patch = [
    'diff --git a/new.txt b/new.txt',
    'new file mode 100644',
    'index 0000000..f272ef5',
    '--- /dev/null',
    '+++ b/new.txt',
    '@@ -0,0 +1 @@',
    '+hello',
    'diff --git a/empty.txt b/empty.txt',
    'new file mode 100644',
    'index 0000000..e69de29',
    'diff --git a/gone.txt b/gone.txt',
    'deleted file mode 100644',
    'index f272ef5..0000000',
    '--- a/gone.txt',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-hello',
    '',
  ].join('\n');

  it('says new file, new empty file, deleted; no modes, blob ids or ---/+++ lines', () => {
    const parts = splitPatch(patch).map((p) => ({ file: p.file, lines: readable(p.lines) }));
    expect(parts).toEqual([
      { file: 'new.txt', lines: ['new file', '@@ -0,0 +1 @@', '+hello'] },
      { file: 'empty.txt', lines: ['new empty file'] },
      { file: 'gone.txt', lines: ['deleted', '@@ -1 +0,0 @@', '-hello'] },
    ]);
  });
});

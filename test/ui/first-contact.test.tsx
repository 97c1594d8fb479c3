// What a new user met in the dashboard (issue 26): emoji sequences that terminals draw apart, titles
// lost at 60 columns, a stale error in the footer, the root's one name, ages that tick.
import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { renderDashboard, NOW, PROJECT, type RenderedDashboard } from './helpers/render-dashboard.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

/**
 * Cells a line takes on a terminal that draws every code point on its own (tmux draws each person of
 * 👨‍👩‍👧‍👦): joiners and selectors take none, the rest what string-width gives that code point alone.
 */
const drawnWidth = (line: string): number =>
  [...line].reduce((w, cp) => w + (/[\u200d\ufe0e\ufe0f]/u.test(cp) ? 0 : stringWidth(cp)), 0);

const FAMILY_TITLE = '👨‍👩‍👧‍👦 family 🏳️‍🌈 flag ❤️ heart 👍🏽 thumb';

describe('dashboard rows as terminals draw them', () => {
  it('keeps the borders in line with ZWJ emoji in a title, however the terminal joins them', async () => {
    d = await renderDashboard({ columns: 160, rows: 20 });
    const s = createSession(d.db, { projectId: PROJECT, type: 'general', status: 'done', title: FAMILY_TITLE });
    updateSession(d.db, s.id, { createdAt: NOW - 60_000 } as never);
    d.feed.refresh();
    await d.waitForText(shortId(s.id));
    const lines = d.frame().split('\n');
    const row = lines.find((l) => l.startsWith('│') && l.includes(shortId(s.id)) && l.includes('family'))!;
    // The persons are drawn one by one, and our measure agrees with the terminal's and Ink's.
    expect(row).toContain('👨👩👧👦 family');
    for (const l of lines) {
      expect(drawnWidth(l)).toBe(stringWidth(l));
      expect(drawnWidth(l)).toBeLessThanOrEqual(160);
    }
    // Every row of the tree ends its pane at the same column.
    const ends = lines.filter((l) => l.startsWith('│')).map((l) => drawnWidth(l.slice(0, l.indexOf('│', 1) + 1)));
    expect(new Set(ends).size).toBe(1);
  });

  it('keeps a title on rows with a depth or a tag at 60 columns', async () => {
    d = await renderDashboard({ columns: 60, rows: 20 });
    const parent = createSession(d.db, { projectId: PROJECT, type: 'general', status: 'done', title: 'parent job' });
    const child = createSession(d.db, {
      projectId: PROJECT,
      parentId: parent.id,
      type: 'general',
      status: 'done',
      title: 'child task with a longer title',
    });
    updateSession(d.db, child.id, { worktreeBranch: 'klaude/x-general' } as never);
    d.feed.refresh();
    await d.waitForText(shortId(child.id));
    const row = d
      .frame()
      .split('\n')
      .find((l) => l.startsWith('│') && l.includes(shortId(child.id)))!;
    expect(row).toMatch(/general wt · child task/);
  });
});

describe('dashboard errors', () => {
  const busy = Object.assign(new Error('REV is running: a message waits for its turn to end'), {
    code: 'E_SESSION_BUSY',
    hint: 'wait for it (klaude wait REV), then send again',
  });

  it('keeps the hint of an error in view at 60 columns, and drops the error once its session moved on', async () => {
    d = await renderDashboard({
      columns: 60,
      rows: 20,
      actions: { message: () => Promise.reject(busy) },
    });
    const rev = d.sessions.rev!;
    await d.press('down', 'down', 'down'); // root1 → test-runner → docs-writer → reviewer
    await d.press('m');
    await d.waitForText(`to reviewer ${shortId(rev.id)}`);
    await d.type('hello there');
    await d.press('enter');
    await d.waitForText('— wait for it');
    // The text is cut, not the hint: it keeps what to do (cut only past its room).
    const footer = d.frame().split('\n').at(-1)!;
    expect(footer).toMatch(/^REV is running:… — wait for it \(klaude wait REV\), then send…$/);
    d.size.set({ columns: 120, rows: 20 });
    await d.waitForText('REV is running: a message waits for its turn to end [E_SESSION_BUSY] — wait for it');
    // Its cause is gone: the session is no longer running. The footer has its key hints back.
    updateSession(d.db, rev.id, { status: 'done' } as never);
    d.feed.refresh();
    await d.waitFor((f) => !f.includes('REV is running') && /\? help/.test(f), 'the stale error to go');
  });

  it('shows an error that comes back after its session moved on, until the status moves on again', async () => {
    let fail: (e: unknown) => void = () => undefined;
    d = await renderDashboard({
      columns: 120,
      rows: 20,
      actions: { message: () => new Promise((_, reject) => (fail = reject)) },
    });
    const rev = d.sessions.rev!;
    await d.press('down', 'down', 'down');
    await d.press('m');
    await d.waitForText(`to reviewer ${shortId(rev.id)}`);
    await d.type('hello there');
    await d.press('enter');
    await d.waitForText(`sending to ${shortId(rev.id)}`);
    // The reviewer's turn ends while the message is on its way; then the refusal comes back.
    updateSession(d.db, rev.id, { status: 'idle' } as never);
    d.feed.refresh();
    fail(busy);
    await d.waitForText('REV is running: a message waits for its turn to end [E_SESSION_BUSY]');
    updateSession(d.db, rev.id, { status: 'done' } as never);
    d.feed.refresh();
    await d.waitFor((f) => !f.includes('REV is running') && /\? help/.test(f), 'the error to go');
  });
});

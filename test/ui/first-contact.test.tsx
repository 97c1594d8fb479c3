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

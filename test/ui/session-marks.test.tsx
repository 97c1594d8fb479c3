// The dashboard's rename (r), pin (p) and group-by-state (o) keys under ink-testing-library, with
// the marks written through the real repos and read back by the real sessions feed.
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { setSessionName, setSessionPinned } from '../../src/db/repos/session-marks.js';
import { renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

/** Tree rows (left pane) in order, as short ids. */
function order(frame: string, ids: string[]): string[] {
  const lines = frame.split('\n');
  return ids
    .map((id) => ({ id, at: lines.findIndex((l) => l.startsWith('│') && l.includes(shortId(id))) }))
    .filter((x) => x.at !== -1)
    .sort((a, b) => a.at - b.at)
    .map((x) => x.id);
}

async function dashboard(): Promise<RenderedDashboard> {
  const box: { d?: RenderedDashboard } = {};
  const r = await renderDashboard({
    columns: 140,
    rows: 40,
    actions: {
      // What the supervisor's action does: write the mark, refresh the feed.
      mark: async (id, m) => {
        const { db, feed } = box.d!;
        if (m.name !== undefined) setSessionName(db, id, m.name);
        if (m.pinned !== undefined) setSessionPinned(db, id, m.pinned);
        feed.refresh();
      },
    },
  });
  box.d = r;
  return r;
}

/** Select a session and wait for the frame that shows it selected (keys act on what is drawn). */
async function select(r: RenderedDashboard, id: string): Promise<void> {
  r.ui.dispatch({ type: 'select', id });
  await r.waitForText(`log · claude ${shortId(id)}`);
}

describe('dashboard marks', () => {
  it('p pins the selected root on top; p again unpins it', async () => {
    d = await dashboard();
    const { root1, root2 } = d.sessions;
    await d.waitFor((f) => order(f, [root1!.id, root2!.id]).length === 2, 'both roots on screen');
    expect(order(d.frame(), [root1!.id, root2!.id])).toEqual([root1!.id, root2!.id]);
    await select(d, root2!.id);
    await d.press('p');
    await d.waitFor((f) => order(f, [root1!.id, root2!.id])[0] === root2!.id, 'the pinned root on top');
    expect(d.calls.filter((c) => c.name === 'mark')).toEqual([{ name: 'mark', args: [root2!.id, { pinned: true }] }]);
    await d.waitForText('pinned: it stays on top');
    await d.press('p');
    await d.waitFor((f) => order(f, [root1!.id, root2!.id])[0] === root1!.id, 'newest first again');
  });

  it('r renames the selected session: its row shows the title; an empty title brings the prompt back', async () => {
    d = await dashboard();
    const { root2 } = d.sessions;
    await select(d, root2!.id);
    await d.press('r');
    await d.waitForText('title of claude');
    await d.type('drizzle upgrade\r');
    const rowOf = (f: string): string =>
      f.split('\n').find((l) => l.startsWith('│') && l.includes(shortId(root2!.id))) ?? '';
    await d.waitFor((f) => rowOf(f).includes('claude · drizzle'), 'the title in its row');
    expect(d.calls.filter((c) => c.name === 'mark')).toEqual([
      { name: 'mark', args: [root2!.id, { name: 'drizzle upgrade' }] },
    ]);
    await d.press('r');
    await d.waitForText('drizzle upgrade▏');
    await d.press('\x15'); // Ctrl-U clears the line
    await d.press('enter');
    await d.waitFor((f) => rowOf(f).includes('claude · Upgrade'), 'the prompt back in its row');
  });

  it('o orders the trees by state: a tree with a waiting agent comes before a pinned finished one', async () => {
    d = await dashboard();
    const { root1, root2 } = d.sessions;
    await select(d, root2!.id);
    await d.press('p');
    await d.waitFor((f) => order(f, [root1!.id, root2!.id])[0] === root2!.id, 'the pinned root on top');
    await d.press('o');
    await d.waitForText('by state: needs you, then working, then done');
    await d.waitFor((f) => order(f, [root1!.id, root2!.id])[0] === root1!.id, 'needs you first');
    expect(d.frame()).toContain('· by state');
    await d.press('o');
    await d.waitFor((f) => order(f, [root1!.id, root2!.id])[0] === root2!.id, 'pins first again');
  });
});

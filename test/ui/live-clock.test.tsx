// Signs of life in the tree: a running row shows its elapsed time and what it is doing, and the
// time moves with no input; with nothing running on screen the clock has no timer at all.
import { afterEach, describe, expect, it } from 'vitest';
import { createSession } from '../../src/db/repos/sessions.js';
import { Clock } from '../../src/feeds/clock.js';
import { NOW, PROJECT, renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

describe('the running rows’ clock', () => {
  it('advances a running agent’s elapsed time with no input, and shows its activity', async () => {
    let t = NOW;
    const clock = new Clock(25);
    d = await renderDashboard({ columns: 160, rows: 30, clock, now: () => t });
    const id = createSession(d.db, {
      projectId: PROJECT,
      type: 'builder',
      status: 'running',
    }).id;
    d.db.sqlite
      .prepare('UPDATE sessions SET run_started_at = ?, activity = ? WHERE id = ?')
      .run(NOW - 65_000, 'Bash: npm test', id);
    d.feed.refresh();
    await d.waitForText('1m05s Bash');
    expect(clock.running).toBe(true);
    t += 3000; // no key, no DB write: only the clock
    await d.waitForText('1m08s Bash');
    d.cleanup();
    d = undefined;
    expect(clock.running).toBe(false);
  });

  it('has no timer when nothing on screen is running', async () => {
    const clock = new Clock(5);
    d = await renderDashboard({ demo: false, clock });
    createSession(d.db, { projectId: PROJECT, type: 'builder', status: 'done' });
    createSession(d.db, { projectId: PROJECT, type: 'tui', status: 'idle' });
    d.feed.refresh();
    await d.waitForText('builder');
    await new Promise((r) => setTimeout(r, 100));
    expect(clock.running).toBe(false);
    expect(clock.ticks).toBe(0);
  });

  it('says why a failed agent failed, on its row', async () => {
    d = await renderDashboard({ demo: false, columns: 160 });
    const id = createSession(d.db, { projectId: PROJECT, type: 'builder', status: 'failed' }).id;
    d.db.sqlite.prepare('UPDATE sessions SET error = ? WHERE id = ?').run('API unreachable after 10 retries', id);
    d.feed.refresh();
    await d.waitForText('✗ API unreach');
  });
});

// Signs of life in the tree: a running row shows its elapsed time and what it is doing, and the
// time moves with no input; with nothing running on screen the clock wakes only when an age shown
// reads differently, and not at all when none is shown.
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

  it('has no 1 Hz tick when nothing on screen is running, and no wake-up before an age changes', async () => {
    const clock = new Clock(5);
    d = await renderDashboard({ demo: false, clock, columns: 160 });
    const a = createSession(d.db, { projectId: PROJECT, type: 'builder', status: 'done' }).id;
    const b = createSession(d.db, { projectId: PROJECT, type: 'tui', status: 'idle' }).id;
    // Hours old: the next change of their ages is at the next whole hour.
    d.db.sqlite.prepare('UPDATE sessions SET created_at = ? WHERE id IN (?, ?)').run(NOW - 3 * 3_600_000 - 5000, a, b);
    d.feed.refresh();
    await d.waitForText('builder');
    await new Promise((r) => setTimeout(r, 100));
    expect(clock.running).toBe(false);
    expect(clock.waking).toBe(true);
    expect(clock.ticks).toBe(0);
  });

  it('moves a finished row’s age with no input, and stops waking when no age is shown', async () => {
    let t = NOW;
    const clock = new Clock();
    d = await renderDashboard({ demo: false, columns: 160, rows: 20, clock, now: () => t });
    const id = createSession(d.db, { projectId: PROJECT, type: 'builder', status: 'done' }).id;
    d.db.sqlite.prepare('UPDATE sessions SET created_at = ? WHERE id = ?').run(NOW - 59_700, id);
    d.feed.refresh();
    await d.waitFor((f) => /claude\s+59s/.test(f), 'the age at 59s');
    expect(clock.running).toBe(false);
    t += 400; // no key, no DB write: the wake due 300 ms after the first frame redraws the age
    await d.waitFor((f) => /claude\s+1m/.test(f), 'the age at 1m');
    expect(clock.ticks).toBe(1);
    expect(clock.waking).toBe(true); // for "2m"
    await d.press('?'); // the help hides the tree: nothing shown has an age
    await d.waitForText('Esc closes');
    expect(clock.waking).toBe(false);
    await d.press('escape');
    await d.waitFor((f) => /claude\s+1m/.test(f), 'the tree back');
    expect(clock.waking).toBe(true);
    d.cleanup();
    d = undefined;
    expect(clock.waking).toBe(false);
  });

  it('says why a failed agent failed, on its row', async () => {
    d = await renderDashboard({ demo: false, columns: 160 });
    const id = createSession(d.db, { projectId: PROJECT, type: 'builder', status: 'failed' }).id;
    d.db.sqlite.prepare('UPDATE sessions SET error = ? WHERE id = ?').run('API unreachable after 10 retries', id);
    d.feed.refresh();
    await d.waitForText('✗ API unreach');
  });
});

// The dashboard's reviews pane (R; `klaude review`) under ink-testing-library: the reviews of the
// selected agent in the right pane, one heading per reviewer with its findings; ] [ choose a
// reviewer, z folds it, S asks and then sends its findings, + starts another review; a selected
// reviewer opens its origin's reviews on itself; the keys are in the keymap (footer and help).
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import type { ReviewFinding } from '../../src/core/findings.js';
import { createReview, markReviewsSent, recordReviewResult } from '../../src/db/repos/reviews.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { footerBindings, helpGroups } from '../../src/ui/keymap.js';
import { NOW, PROJECT, renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

const FINDINGS: ReviewFinding[] = [
  { file: null, line: null, severity: 'low', text: 'no test covers the refresh path' },
  { file: 'src/auth.ts', line: 42, severity: 'high', text: 'the token is compared with == (timing leak)' },
];

/** Two reviewers of the demo's `reviewer` agent: codex (findings read, sent) and claude (still reviewing). */
function seedReviews(r: RenderedDashboard): { codex: string; claude: string; origin: string } {
  const origin = r.sessions.rev!.id;
  const make = (runtime: 'codex' | 'claude', status: 'done' | 'running', minutes: number): string => {
    const s = createSession(r.db, {
      projectId: PROJECT,
      type: 'general',
      runtime,
      status,
      title: `review of ${shortId(origin)}'s diff`,
      reviewOf: origin,
    });
    updateSession(r.db, s.id, { createdAt: NOW - minutes * 60_000 } as never);
    createReview(r.db, { sessionId: s.id, subject: 'diff', focus: minutes === 1 ? 'security' : null });
    return s.id;
  };
  const codex = make('codex', 'done', 2);
  recordReviewResult(r.db, codex, { summary: 'Mostly right; one real bug.', findings: FINDINGS });
  markReviewsSent(r.db, [codex]);
  const claude = make('claude', 'running', 1);
  r.feed.refresh();
  return { codex, claude, origin };
}

describe('reviews pane', () => {
  it('R shows each reviewer with its findings, high first; z folds one; R again goes back to the log', async () => {
    d = await renderDashboard({ columns: 150, rows: 34 });
    const { codex, claude, origin } = seedReviews(d);
    d.ui.dispatch({ type: 'select', id: origin });
    await d.waitForText(`log · reviewer ${shortId(origin)}`);
    await d.press('R');
    await d.waitForText(`reviews · reviewer ${shortId(origin)}`);
    const f = d.frame();
    expect(f).toContain(`2 reviews of reviewer ${shortId(origin)} (claude)`);
    expect(f).toContain(`▶▾ codex ${shortId(codex)} · done · of its diff: 2 findings (1 high, 1 low) · sent`);
    expect(f).toContain('Mostly right; one real bug.');
    // High first, whatever order the reviewer wrote them in.
    const high = f.indexOf('high   src/auth.ts:42  the token is compared with == (timing leak)');
    const low = f.indexOf('low    no test covers the refresh path');
    expect(high).toBeGreaterThan(0);
    expect(low).toBeGreaterThan(high);
    expect(f).toContain(` ▾ claude ${shortId(claude)} · running · of its diff: reviewing…`);
    expect(f).toContain('focus: security');
    expect(f).toContain('2 reviewers · R: log');
    // Fold the codex review: its findings go, its heading stays.
    await d.press('z');
    await d.waitFor((x) => x.includes(`▶▸ codex ${shortId(codex)}`) && !x.includes('timing leak'), 'codex folded');
    // The next reviewer is chosen; folding it leaves the first folded.
    await d.press(']');
    await d.waitForText(`▶▾ claude ${shortId(claude)}`);
    await d.press('z');
    await d.waitForText(`▶▸ claude ${shortId(claude)}`);
    expect(d.frame()).toContain(` ▸ codex ${shortId(codex)}`);
    await d.press('R');
    await d.waitForText(`log · reviewer ${shortId(origin)}`);
  });

  it('S asks, then gives the chosen reviewer’s findings to the agent; a reviewer still working is refused', async () => {
    d = await renderDashboard({ columns: 150, rows: 34 });
    const { codex, claude, origin } = seedReviews(d);
    d.ui.dispatch({ type: 'select', id: origin });
    await d.waitForText(`log · reviewer ${shortId(origin)}`);
    await d.press('R');
    await d.waitForText(`▶▾ codex ${shortId(codex)}`);
    await d.press('S');
    await d.waitForText(`Give codex's 2 findings (1 high, 1 low) to ${shortId(origin)} as a message again`);
    await d.press('y');
    await d.waitForText(`gave 2 findings to ${shortId(origin)} (resumed)`);
    expect(d.calls.filter((c) => c.name === 'sendReview').map((c) => c.args)).toEqual([[codex]]);
    await d.press(']', 'S');
    await d.waitForText(`the review ${shortId(claude)} is still running: its findings come when it ends`);
    expect(d.calls.filter((c) => c.name === 'sendReview')).toHaveLength(1);
  });

  it('+ starts another review; a selected reviewer opens its origin’s reviews on itself', async () => {
    d = await renderDashboard({ columns: 150, rows: 34 });
    const { claude, origin } = seedReviews(d);
    d.ui.dispatch({ type: 'select', id: claude });
    await d.waitForText(`log · general ${shortId(claude)}`);
    await d.press('R');
    await d.waitForText(`reviews · reviewer ${shortId(origin)}`);
    expect(d.frame()).toContain(`▶▾ claude ${shortId(claude)}`);
    await d.press('+');
    await d.waitForText(`${shortId('01JREVIEWAGENT000000000000')} (codex) reviews ${shortId(origin)}, read-only`);
    expect(d.calls.filter((c) => c.name === 'startReview').map((c) => c.args)).toEqual([[origin]]);
  });

  it('a session without reviews says how to start one; the keys are in the footer and the help', async () => {
    d = await renderDashboard({ columns: 150, rows: 34 });
    const fix = d.sessions.fix!.id;
    d.ui.dispatch({ type: 'select', id: fix });
    await d.waitForText(`log · coder ${shortId(fix)}`);
    expect(d.frame()).toContain('R reviews');
    await d.press('R');
    await d.waitForText(`no review of coder ${shortId(fix)} (claude) yet`);
    expect(d.frame()).toContain(`+ starts one`);
    // z and S have nothing to act on.
    await d.press('S');
    await d.waitForText(`${shortId(fix)} has no review yet (+ starts one)`);
    expect(footerBindings('tree').map((b) => b.id)).toEqual(expect.arrayContaining(['view.reviews', 'review.fold']));
    expect(
      helpGroups()
        .find((g) => g.group === 'View')!
        .bindings.map((b) => b.id),
    ).toEqual(
      expect.arrayContaining([
        'view.reviews',
        'review.next',
        'review.prev',
        'review.fold',
        'review.send',
        'review.start',
      ]),
    );
  });

  it('on a narrow terminal (one pane at a time) R and c show the right pane they fill', async () => {
    d = await renderDashboard({ columns: 60, rows: 24 });
    const { origin } = seedReviews(d);
    d.ui.dispatch({ type: 'select', id: origin });
    await d.waitForText('╭─ sessions');
    await d.press('R');
    await d.waitForText(`reviews · reviewer ${shortId(origin)}`);
    expect(d.frame()).not.toContain('╭─ sessions');
    await d.press('R'); // back to its log, still in the right pane
    await d.waitForText(`log · reviewer ${shortId(origin)}`);
    await d.press('tab');
    await d.waitForText('╭─ sessions');
    await d.press('c');
    await d.waitForText(`diff · reviewer ${shortId(origin)}`);
    expect(d.frame()).not.toContain('╭─ sessions');
  });
});

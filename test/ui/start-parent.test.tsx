// The dashboard's `s` says where the agent starts (under the selected row, or at the top level) and
// `p` in the dialog toggles it; a worktree agent that is not working is not a parent by default
// (its child would work in the project's tree, not in its worktree).
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { PROJECT, renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

const startCalls = (x: RenderedDashboard): unknown[] => x.calls.filter((c) => c.name === 'start').map((c) => c.args[0]);

describe('the start dialog’s parent', () => {
  it('names the selected session it starts under, and p makes it top level', async () => {
    d = await renderDashboard({ columns: 160 });
    const root = d.sessions.root1!;
    await d.press('s');
    await d.waitForText('reviewer — reviews diffs');
    expect(d.frame()).toMatch(new RegExp(`agent type, under claude ${shortId(root.id)} "[^"]+":`));
    expect(d.frame()).toContain('p top level · Esc cancel');
    await d.press('p');
    await d.waitForText('agent type, at the top level:');
    expect(d.frame()).toContain(`p under ${shortId(root.id)}`);
    await d.press('enter');
    await d.waitForText('general agent, at the top level');
    await d.type('tidy the docs');
    await d.waitForText('tidy the docs▏');
    await d.press('enter');
    await d.waitForText('started general');
    expect(startCalls(d)).toEqual([{ type: 'general', prompt: 'tidy the docs', parentId: null }]);
  });

  it('starts at the top level from a finished worktree agent, and says what starting under it means', async () => {
    d = await renderDashboard({ demo: false, columns: 160 });
    const wt = createSession(d.db, { projectId: PROJECT, type: 'builder', status: 'done', title: 'refactor auth' });
    updateSession(d.db, wt.id, { worktreeBranch: 'klaude/x-builder' } as never);
    d.feed.refresh();
    await d.waitForText(shortId(wt.id));
    await d.press('s');
    await d.waitForText('reviewer — reviews diffs');
    expect(d.frame()).toContain('agent type, at the top level:');
    expect(d.frame()).toContain(`builder ${shortId(wt.id)} is a worktree agent, not working`);
    await d.press('p');
    await d.waitForText(`agent type, under builder ${shortId(wt.id)} "refactor auth":`);
    expect(d.frame()).toContain("it works in the project's tree, not in klaude/x-builder");
    await d.press('down', 'enter');
    await d.waitForText("it works in the project's tree"); // said again beside the prompt
    await d.type('review it\r');
    await d.waitForText('started reviewer');
    expect(startCalls(d)).toEqual([{ type: 'reviewer', prompt: 'review it', parentId: wt.id }]);
  });

  it('starts under a running worktree agent by default', async () => {
    d = await renderDashboard({ demo: false, columns: 160 });
    const wt = createSession(d.db, { projectId: PROJECT, type: 'builder', status: 'running' });
    updateSession(d.db, wt.id, { worktreeBranch: 'klaude/y-builder' } as never);
    d.feed.refresh();
    await d.waitForText(shortId(wt.id));
    await d.press('s');
    await d.waitForText(`agent type, under builder ${shortId(wt.id)}`);
    expect(d.frame()).toContain("it works in the project's tree, not in klaude/y-builder");
    await d.press('p');
    await d.waitForText('agent type, at the top level:');
    expect(d.frame()).not.toContain('is a worktree agent, not working');
  });
});

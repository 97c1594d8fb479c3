// `klaude ui --all` and P: every project of the home in one tree (needs you first, then each
// project under its heading), counts across projects in the header, and the keys acting on a row
// of another project; Space peeks without moving the selection; m on a PTY session opens the
// one-line reply. Real stores and feeds over an in-memory DB holding two projects.
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { ensureProject } from '../../src/db/repos/projects.js';
import { createSession, updateSession } from '../../src/db/repos/sessions.js';
import { openMemoryDb } from '../../src/db/client.js';
import { buildAllRows, shortRoot } from '../../src/feeds/project-tree.js';
import { ProjectsFeed } from '../../src/feeds/projects-feed.js';
import { SessionsFeed } from '../../src/feeds/sessions-feed.js';
import type { SessionView } from '../../src/feeds/session-tree.js';
import { renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';

const OTHER = 'p0000000000000000000000b';
const OTHER_ROOT = '/srv/work/other-repo';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

/** A second project with a waiting agent and a finished one. */
function seedOther(r: RenderedDashboard): { waiting: string; done: string } {
  ensureProject(r.db, { hash: OTHER, rootPath: OTHER_ROOT });
  const mk = (status: 'waiting' | 'done', prompt: string): string => {
    const s = createSession(r.db, {
      projectId: OTHER,
      parentId: null,
      type: 'tester',
      runtime: 'claude',
      status,
      prompt,
    });
    updateSession(r.db, s.id, { createdAt: Date.now(), updatedAt: Date.now() } as never);
    return s.id;
  };
  return { waiting: mk('waiting', 'other-waiting-marker'), done: mk('done', 'other-done-marker') };
}

/** The left pane's lines (inside the border), top to bottom. */
const treeLines = (frame: string): string[] =>
  frame
    .split('\n')
    .filter((l) => l.startsWith('│'))
    .map((l) => l.split('│')[1]!.trim());

describe('all projects in the dashboard', () => {
  it('P shows every project grouped, needs you first, with counts across projects; P again this one only', async () => {
    d = await renderDashboard({ columns: 200, rows: 40 });
    const other = seedOther(d);
    d.projects.refresh();
    await d.waitForText('klaude · demo');
    expect(d.frame()).not.toContain('other-waiting-marker');
    expect(d.frame()).toMatch(/1 waiting/);

    await d.press('P');
    await d.waitForText('all projects (2)');
    await d.waitForText('other-done-marker');
    const lines = treeLines(d.frame());
    const at = (re: RegExp): number => lines.findIndex((l) => re.test(l));
    // needs you (the demo's waiting agent and the other project's), then this project, then the other.
    expect(at(/^needs you \(2\)/)).toBe(0);
    expect(at(new RegExp(`tester .*other-repo: .*waiting.*${shortId(other.waiting)}`))).toBeGreaterThan(0);
    const otherHeading = at(/^\/srv\/work\/other-repo · 1 waiting/);
    expect(otherHeading).toBeGreaterThan(at(/Fix the flaky login test/));
    expect(at(/other-done-marker/)).toBeGreaterThan(otherHeading);
    // The header counts both projects' sessions.
    expect(d.frame()).toMatch(/2 waiting/);

    await d.press('P');
    await d.waitFor((f) => !f.includes('other-done-marker'), 'the other project gone');
    expect(d.frame()).toContain('klaude · demo');
  });

  it('--all starts with every project; keys act on the row of another project; moving passes its two rows', async () => {
    d = await renderDashboard({ columns: 200, rows: 40, ui: { allProjects: true } });
    const other = seedOther(d);
    d.projects.refresh();
    await d.waitForText('other-waiting-marker');
    d.ui.dispatch({ type: 'select', id: other.done });
    await d.waitForText(`log · tester ${shortId(other.done)}`);
    await d.press('m');
    await d.waitForText(`to tester ${shortId(other.done)} (done)`);
    await d.type('hello there');
    await d.press('enter');
    await d.waitFor(() => d!.calls.some((c) => c.name === 'message'), 'the message action');
    expect(d.calls.find((c) => c.name === 'message')!.args).toEqual([other.done, 'hello there']);

    // The waiting agent is on two rows (needs you, and last in its project's tree): G goes to the
    // last one and stays there; k and j come back to it.
    await d.press('G');
    await d.waitFor(() => d!.ui.getSnapshot().selectedIndex > 5, 'the last row selected');
    const last = d.ui.getSnapshot().selectedIndex;
    expect(d.ui.getSnapshot().selectedId).toBe(other.waiting);
    await d.press('k', 'j');
    await d.waitFor(() => d!.ui.getSnapshot().selectedIndex === last, 'back on the last row');
    expect(d.ui.getSnapshot().selectedId).toBe(other.waiting);
    await d.press('g');
    await d.waitFor(() => d!.ui.getSnapshot().selectedIndex === 0, 'the first row (needs you)');
    expect(d.ui.getSnapshot().selectedId).toBe(other.waiting);
  });

  it('Space peeks at the selected session in a popup, Esc closes it, the selection stays', async () => {
    d = await renderDashboard({ columns: 200, rows: 40 });
    const { rev } = d.sessions;
    d.ui.dispatch({ type: 'select', id: rev!.id });
    await d.waitForText(`log · reviewer ${shortId(rev!.id)}`);
    await d.press(' ');
    await d.waitForText('peek · last message');
    await d.waitForText('peeked line two');
    expect(d.calls.find((c) => c.name === 'peek')!.args).toEqual([rev!.id, 'message']);
    expect(d.ui.getSnapshot().selectedId).toBe(rev!.id);
    await d.press('escape');
    await d.waitFor((f) => !f.includes('peeked line two'), 'the peek closed');
    expect(d.ui.getSnapshot().selectedId).toBe(rev!.id);
  });
});

describe('the all-projects tree', () => {
  const view = (id: string, projectId: string, status: SessionView['status'], createdAt: number): SessionView =>
    ({
      id,
      projectId,
      parentId: null,
      type: 'general',
      runtime: 'claude',
      status,
      title: id,
      prompt: null,
      lastText: null,
      model: null,
      costUsd: null,
      tokensIn: null,
      tokensOut: null,
      archivedAt: null,
      createdAt,
      updatedAt: createdAt,
      endedAt: null,
      logPath: null,
      nativeSessionId: null,
      activity: null,
      runStartedAt: null,
      error: null,
    }) as SessionView;

  it('puts waiting sessions first (whichever project), then each project in the order given', () => {
    const rows = buildAllRows(
      {
        sessions: [view('a1', 'A', 'done', 1), view('b1', 'B', 'waiting', 2), view('b2', 'B', 'running', 3)],
        projects: [
          { id: 'A', root: '/home/me/a' },
          { id: 'B', root: '/home/me/code/b' },
        ],
        homeDir: '/home/me',
      },
      { collapsed: new Set(), filter: '', showArchived: false },
    );
    expect(rows.map((r) => [r.heading ?? '', r.session.id])).toEqual([
      ['needs you (1)', 'b1'],
      ['~/a', 'a1'],
      ['~/code/b · 1 running · 1 waiting', 'b2'],
      ['', 'b1'],
    ]);
    expect(rows[0]!.where).toBe('b');
  });

  it('shortens long roots to their last parts', () => {
    expect(shortRoot('/very/long/path/to/some/deeply/nested/project-directory', undefined, 30)).toBe(
      '…/nested/project-directory',
    );
  });
});

describe('the projects feed', () => {
  it('reads the other projects only while every project is shown', () => {
    const db = openMemoryDb();
    ensureProject(db, { hash: 'A', rootPath: '/a' });
    ensureProject(db, { hash: 'B', rootPath: '/b' });
    createSession(db, { projectId: 'A', parentId: null, type: 'tui', runtime: 'claude', status: 'idle' });
    const home = new SessionsFeed({ db, projectId: 'A', frameMs: 0, watchFiles: false });
    const feed = new ProjectsFeed({ db, home, homeProject: { id: 'A', root: '/a' }, frameMs: 0, watchFiles: false });
    try {
      expect(feed.getSnapshot()).toBe(home.getSnapshot());
      createSession(db, { projectId: 'B', parentId: null, type: 'coder', runtime: 'claude', status: 'waiting' });
      feed.setAll(true);
      const all = feed.getSnapshot();
      expect(all.projects?.map((p) => p.id)).toEqual(['A', 'B']);
      expect(all.sessions.map((x) => x.projectId).sort()).toEqual(['A', 'B']);
      expect(feed.projectOf(all.sessions.find((x) => x.projectId === 'B')!.id)?.root).toBe('/b');
      // Off: this project's snapshot again, and a change elsewhere is not even looked at.
      feed.setAll(false);
      expect(feed.getSnapshot()).toBe(home.getSnapshot());
      let told = 0;
      feed.subscribe(() => told++);
      createSession(db, { projectId: 'B', parentId: null, type: 'coder', runtime: 'claude', status: 'running' });
      feed.refresh();
      expect(told).toBe(0);
      expect(feed.getSnapshot().projects).toBeUndefined();
    } finally {
      feed.close();
      home.close();
      db.close();
    }
  });
});

// The dashboard's review parts under ink-testing-library: the diff key (c) puts the selected
// agent's diff in the right pane (file headers, hunks, scrollable) and back to its log; tree rows
// show their subtree's cost and the header the project's; the diff lines get their tones.
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { footerBindings, helpGroups } from '../../src/ui/keymap.js';
import { diffLines } from '../../src/ui/log/diff-lines.js';
import { renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

const row = (frame: string, id: string): string =>
  frame.split('\n').find((l) => l.startsWith('│') && l.includes(shortId(id))) ?? '';

const PATCH = [
  'diff --git a/made.txt b/made.txt',
  'new file mode 100644',
  'index 0000000..ce01362',
  '--- /dev/null',
  '+++ b/made.txt',
  '@@ -0,0 +1 @@',
  '+hello-from-agent',
  'diff --git a/base.txt b/base.txt',
  'index 1111111..2222222 100644',
  '--- a/base.txt',
  '+++ b/base.txt',
  '@@ -1,40 +1,40 @@',
  '-base line',
  '+agent line',
  ...Array.from({ length: 60 }, (_, i) => ` context line ${i}`),
  '',
].join('\n');

describe('diff view', () => {
  it('c shows the selected agent diff in the right pane, scrolls it, and c again goes back to the log', async () => {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    d = await renderDashboard({
      columns: 140,
      rows: 30,
      actions: {
        diff: async () => {
          await held;
          return { heading: 'branch klaude/abcd1234-reviewer against 0123456789', patch: PATCH, files: 2 };
        },
      },
    });
    const rev = d.sessions.rev!;
    d.ui.dispatch({ type: 'select', id: rev.id });
    await d.waitFor(
      (f) => row(f, rev.id).includes('reviewer') && f.includes(`log · reviewer ${shortId(rev.id)}`),
      'reviewer selected',
    );
    await d.press('c');
    await d.waitForText('reading the diff…');
    expect(d.calls.find((c) => c.name === 'diff')?.args).toEqual([rev.id]);
    release();
    await d.waitForText('▌ made.txt');
    const f = d.frame();
    expect(f).toContain(`diff · reviewer ${shortId(rev.id)}`);
    expect(f).toContain('branch klaude/abcd1234-reviewer against 0123456789');
    expect(f).toContain('@@ -0,0 +1 @@');
    expect(f).toContain('+hello-from-agent');
    expect(f).toContain('▌ base.txt');
    expect(f).toContain('-base line');
    expect(f).not.toContain('+++ b/made.txt'); // the file header line replaces git's header lines
    expect(f).toMatch(/2 files · \d+ more ↓ · c: log/);
    expect(f).not.toContain('context line 59');
    // The log's scroll keys scroll the diff.
    await d.press('tab', 'end');
    await d.waitForText('context line 59');
    expect(d.frame()).not.toContain('+hello-from-agent');
    await d.press('home');
    await d.waitForText('+hello-from-agent');
    // Back to the log.
    await d.press('c');
    await d.waitForText(`log · reviewer ${shortId(rev.id)}`);
    expect(d.frame()).not.toContain('▌ made.txt');
  });

  it('shows why the diff could not be read; moving to another session closes it', async () => {
    d = await renderDashboard({
      columns: 140,
      actions: {
        diff: async () => {
          throw Object.assign(new Error('worktree and branch were removed'), { code: 'E_NO_WORKTREE' });
        },
      },
    });
    d.ui.dispatch({ type: 'select', id: d.sessions.rev!.id });
    await d.waitForText(`log · reviewer ${shortId(d.sessions.rev!.id)}`);
    await d.press('c');
    await d.waitForText('worktree and branch were removed [E_NO_WORKTREE]');
    await d.press('j');
    await d.waitFor((f) => !f.includes('worktree and branch were removed') && f.includes('log · '), 'back to a log');
  });

  it('c on an interactive session says why not; the key is in the footer and the help', async () => {
    d = await renderDashboard({ columns: 140 });
    expect(d.frame()).toMatch(/c diff/);
    expect(footerBindings('tree').map((b) => b.id)).toContain('view.diff');
    await d.press('c');
    await d.waitForText('interactive session: diffs are kept for agents');
    expect(d.calls.some((c) => c.name === 'diff')).toBe(false);
    expect(
      helpGroups()
        .find((g) => g.group === 'View')!
        .bindings.map((b) => b.id),
    ).toContain('view.diff');
  });
});

describe('cost per subtree and project', () => {
  it("a parent's row shows the sum of its own and its children's cost and tokens; the header the project's", async () => {
    d = await renderDashboard({ columns: 140 });
    const s = d.sessions;
    const f = d.frame();
    // root1 (no usage of its own) = rev 20.6k/$0.07 + fix 4.7k/$0.01 + docs 9.9k/$0.02 + its other children.
    expect(row(f, s.rev!.id)).toMatch(/25k\s+\$0\.08/);
    expect(row(f, s.fix!.id)).toMatch(/4\.7k\s+\$0\.01/);
    const rootRow = row(f, s.root1!.id);
    expect(rootRow).toMatch(/\d+k\s+\$0\.\d\d/);
    expect(f.split('\n')[0]).toMatch(/klaude · demo · 00000000 · \$0\.\d\d \d+k tok/);
  });
});

describe('diff lines', () => {
  it('gives file headers, hunks, additions and deletions their own tones', () => {
    const lines = diffLines('heading', PATCH);
    const tone = (text: string) => lines.find((l) => l.text === text)?.tone;
    expect(lines[0]).toEqual({ text: 'heading', tone: 'meta' });
    expect(tone('▌ made.txt')).toBe('diffFile');
    expect(tone('@@ -0,0 +1 @@')).toBe('diffHunk');
    expect(tone('+hello-from-agent')).toBe('diffAdd');
    expect(tone('-base line')).toBe('diffDel');
    expect(tone(' context line 0')).toBe('text');
    expect(diffLines('h', '')).toEqual([
      { text: 'h', tone: 'meta' },
      { text: 'no changes', tone: 'meta' },
    ]);
  });
});

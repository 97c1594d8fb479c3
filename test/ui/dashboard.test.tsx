// The dashboard frame under ink-testing-library: tree, selection, log pane, filter, help overlay
// generated from the keymap, dialogs, and keys that explain why they can't act.
import { afterEach, describe, expect, it } from 'vitest';
import { shortId } from '../../src/core/ids.js';
import { headerLeft } from '../../src/ui/components/header.js';
import { KEYMAP } from '../../src/ui/keymap.js';
import { renderDashboard, type RenderedDashboard } from './helpers/render-dashboard.js';
import { appendEvents } from './helpers/demo-data.js';

let d: RenderedDashboard | undefined;
afterEach(() => {
  d?.cleanup();
  d = undefined;
});

const rowsOf = (frame: string): string[] => frame.split('\n');
/** The tree row (left pane) that names this session. */
const row = (frame: string, id: string): string =>
  rowsOf(frame).find((l) => l.startsWith('│') && l.includes(shortId(id))) ?? '';

describe('dashboard', () => {
  it('renders the tree with status glyphs, types, short ids, runtime, age and cost; header counts; footer hints', async () => {
    d = await renderDashboard({ columns: 140 });
    const f = d.frame();
    const s = d.sessions;
    expect(f).toContain('klaude · demo · 00000000');
    expect(f).toMatch(/● 1 running\s+◆ 1 waiting\s+○ 1 idle\s+✓ 2 done\s+✗ 1 failed\s+⊘ 1 interrupted/);
    // A parent's row shows its subtree: the reviewer (20.6k, $0.07) plus its coder (4.7k, $0.01).
    expect(row(f, s.rev!.id)).toMatch(/▾ ● reviewer .*claude 12m\s+25k\s+\$0\.08/);
    expect(row(f, s.fix!.id)).toMatch(/◆ coder/);
    expect(row(f, s.docs!.id)).toMatch(/✗ docs-writer .*codex/);
    expect(row(f, s.mig!.id)).toMatch(/⊘ general/);
    // Nesting: the coder is under the reviewer, which is under the root.
    const lines = rowsOf(f);
    const at = (id: string) => lines.findIndex((l) => l.includes(shortId(id)));
    expect(at(s.root1!.id)).toBeLessThan(at(s.rev!.id));
    expect(at(s.rev!.id)).toBeLessThan(at(s.fix!.id));
    // Newest root first.
    expect(at(s.root1!.id)).toBeLessThan(at(s.root2!.id));
    // The right-hand columns line up whatever the depth.
    const cols = Object.values(s).map((x) => row(f, x.id).indexOf(shortId(x.id)));
    expect(new Set(cols).size).toBe(1);
    expect(f).toMatch(/↓ down\s+Tab pane\s+⏎ open\s+n new\s+s start/);
  });

  it('keeps the frame inside the terminal: one row shorter, no line wider', async () => {
    d = await renderDashboard({ columns: 100, rows: 30 });
    const lines = rowsOf(d.frame());
    expect(lines.length).toBeLessThanOrEqual(29);
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(100);
    d.size.set({ columns: 60, rows: 12 });
    await d.waitFor((f) => rowsOf(f).length <= 11, 'the frame to shrink');
    expect(Math.max(...rowsOf(d.frame()).map((l) => [...l].length))).toBeLessThanOrEqual(60);
  });

  it('drops whole pieces of the header where they do not fit, never showing a figure cut short', async () => {
    const usage = { costUsd: 0.1, tokens: 38_000 };
    expect(headerLeft('demo', '0'.repeat(26), usage, 60)).toBe('klaude · demo · 00000000 · $0.10 38k tok');
    expect(headerLeft('demo', '0'.repeat(26), usage, 35)).toBe('klaude · demo · 00000000');
    expect(headerLeft('demo', '0'.repeat(26), usage, 20)).toBe('klaude · demo');
    expect(headerLeft('a-long-project-name', '0'.repeat(26), usage, 20)).toBe('klaude · a-long-pro…');
    d = await renderDashboard({ columns: 60 });
    const top = rowsOf(d.frame())[0]!;
    expect(top).toMatch(/^klaude · demo\b/);
    expect(top).not.toContain('…');
  });

  it('moves the selection and shows the selected session’s log, following new lines', async () => {
    d = await renderDashboard({ columns: 140 });
    const s = d.sessions;
    await d.press('down', 'down', 'down'); // root1 → test-runner → docs-writer → reviewer
    await d.waitForText(`log · reviewer ${shortId(s.rev!.id)}`);
    await d.waitForText('→ Read: src/auth/middleware.ts');
    const f = d.frame();
    expect(f).toContain('[UPDATE] found a read-before-write race in refresh.ts:18');
    expect(f.split('[UPDATE] found a read-before-write').length).toBe(2); // the update event is not shown twice
    expect(f).toMatch(/✗ FAIL test\/auth\/refresh\.test\.ts \(\+3 lines\)/);
    appendEvents(s.rev!.logPath, [{ type: 'text', text: 'A brand new line from the agent' }]);
    await d.waitForText('A brand new line from the agent');
    await d.press('k'); // j/k work like the arrows
    await d.waitForText(`log · docs-writer ${shortId(s.docs!.id)}`);
    expect(d.ui.getSnapshot().selectedId).toBe(s.docs!.id);
  });

  it('folds and unfolds sub-agents with ←/→ (h/l)', async () => {
    d = await renderDashboard({ columns: 140 });
    const s = d.sessions;
    await d.press('down', 'down', 'down'); // reviewer (has the coder under it)
    expect(d.frame()).toContain(shortId(s.fix!.id));
    await d.press('left');
    expect(d.frame()).not.toContain(shortId(s.fix!.id));
    expect(row(d.frame(), s.rev!.id)).toContain('▸ ● reviewer');
    await d.press('l');
    expect(d.frame()).toContain(shortId(s.fix!.id));
    await d.press('h', 'h'); // fold, then up to the parent
    expect(d.ui.getSnapshot().selectedId).toBe(s.root1!.id);
  });

  it('filters the tree with / (matches and their ancestors), Esc clears', async () => {
    d = await renderDashboard();
    const s = d.sessions;
    await d.press('/');
    await d.type('coder');
    await d.waitForText('/ coder');
    const f = d.frame();
    expect(f).toContain(shortId(s.fix!.id));
    expect(f).toContain(shortId(s.rev!.id)); // ancestor kept for context
    expect(f).toContain(shortId(s.root1!.id));
    expect(f).not.toContain(shortId(s.tests!.id));
    expect(f).not.toContain(shortId(s.root2!.id));
    await d.press('enter'); // keep the filter, back to the tree
    expect(d.frame()).toContain('sessions 3 · /coder');
    await d.press('/', 'escape');
    expect(d.frame()).toContain(shortId(s.root2!.id));
  });

  it('generates the ? help from the keymap: every binding, with why it cannot act now', async () => {
    d = await renderDashboard({ columns: 140, rows: 110 });
    await d.press('?');
    const f = d.frame();
    for (const b of KEYMAP) expect(f, b.id).toContain(b.description.slice(0, 40));
    // The root (a TUI session) is selected: message and interrupt say why not.
    expect(f).toContain('now: claude');
    expect(f).toMatch(/now: claude \w+ is an interactive session: press Enter to open it and type there/);
    await d.press('escape');
    expect(d.frame()).not.toContain('Esc closes');
  });

  it('wraps the ? help at 60 columns instead of cutting what a key does', async () => {
    d = await renderDashboard({ columns: 60, rows: 200 });
    await d.press('?');
    await d.waitForText('Esc closes');
    const f = d.frame();
    // Every description is there whole, only wrapped: join the overlay's text and look for each.
    const text = rowsOf(f)
      .map((l) => l.replace(/^│\s?|\s*│$/g, '').trim())
      .join(' ')
      .replace(/\s+/g, ' ');
    for (const b of KEYMAP) expect(text, b.id).toContain(b.description.replace(/\s+/g, ' '));
    expect(f).not.toMatch(/\w…\s*│/);
  });

  it('says why a key does nothing: a disabled command, a key of the other pane, an unknown key', async () => {
    d = await renderDashboard();
    await d.press('m'); // root TUI session selected
    expect(d.frame()).toMatch(/message: claude \w+ is an interactive session: press Enter to open it/);
    await d.press('down'); // test-runner (done)
    await d.press('i');
    expect(d.frame()).toMatch(/interrupt: test-runner \w+ is done: nothing to interrupt/);
    await d.press('tab', 'h');
    expect(d.frame()).toContain('h (fold) works in the tree pane: Tab switches panes');
    await d.press('x');
    expect(d.frame()).toContain('x is not a key here: ? lists the keys');
    expect(d.calls).toEqual([]);
  });

  it('interrupts only after y in the confirm dialog', async () => {
    d = await renderDashboard();
    const s = d.sessions;
    await d.press('down', 'down', 'down', 'i'); // reviewer (running)
    await d.waitForText('confirm (dangerous)');
    expect(d.frame()).toContain(`Interrupt reviewer ${shortId(s.rev!.id)} (running)?`);
    await d.press('n');
    expect(d.frame()).not.toContain('confirm (dangerous)');
    await d.press('i', 'y');
    await d.waitForText(`interrupted ${shortId(s.rev!.id)}`);
    // What the interrupt kept from being sent is named, not dropped silently.
    expect(d.frame()).toContain('not sent (queued behind the turn): "also run the linter"');
    expect(d.calls).toEqual([{ name: 'interrupt', args: [[s.rev!.id]] }]);
  });

  it('starts an agent: type picker from the definitions, then the prompt, under the selected session', async () => {
    d = await renderDashboard();
    const s = d.sessions;
    await d.press('s');
    await d.waitForText('reviewer — reviews diffs');
    expect(d.frame()).toContain('start an agent · 1/2 type');
    await d.press('down', 'enter');
    await d.waitForText('start an agent · 2/2 prompt');
    await d.type('check the auth tests');
    await d.waitForText('check the auth tests▏');
    await d.press('enter');
    await d.waitForText('started reviewer');
    expect(d.calls.filter((c) => c.name === 'start')).toEqual([
      { name: 'start', args: [{ type: 'reviewer', prompt: 'check the auth tests', parentId: s.root1!.id }] },
    ]);
  });

  it('messages an agent; an empty message is refused', async () => {
    d = await renderDashboard();
    const s = d.sessions;
    await d.press('down', 'm');
    await d.waitForText('to test-runner');
    await d.press('enter');
    expect(d.frame()).toContain('type a message first');
    await d.type('run it again please\r'); // text and Enter in one chunk
    await d.waitForText(`sent to ${shortId(s.tests!.id)}: it reads it when its current turn ends`);
    expect(d.calls).toEqual([{ name: 'message', args: [s.tests!.id, 'run it again please'] }]);
  });

  it('Enter opens the selected session; a working agent asks first', async () => {
    d = await renderDashboard();
    const s = d.sessions;
    await d.press('enter');
    expect(d.calls).toEqual([{ name: 'open', args: [s.root1!.id] }]);
    await d.press('down', 'down', 'down', 'enter'); // reviewer: running
    await d.waitForText('Opening it stops');
    expect(d.calls).toHaveLength(1);
    await d.press('y');
    expect(d.calls.at(-1)).toEqual({ name: 'open', args: [s.rev!.id] });
  });

  it('archives a finished subtree (never a live one) and shows archived sessions with a', async () => {
    d = await renderDashboard();
    const s = d.sessions;
    await d.press('G'); // last row: general (interrupted), under root2 (done)
    await d.press('k'); // root2
    expect(d.ui.getSnapshot().selectedId).toBe(s.root2!.id);
    await d.press('d');
    await d.waitForText('Archive claude');
    expect(d.frame()).toContain('and its 1 sub-agent?');
    await d.press('y');
    await d.waitForText('archived claude');
    expect(d.calls.at(-1)).toEqual({ name: 'archive', args: [[s.root2!.id, s.mig!.id], true] });
    // Nothing live is archived: a running agent, or a finished one whose sub-agent still works.
    await d.press('home', 'down', 'down', 'down', 'd'); // reviewer: running
    expect(d.frame()).toMatch(/archive: reviewer \w+ is running: archiving hides finished sessions only/);
    await d.press('home', 'd'); // the root: its claude is open
    expect(d.frame()).toMatch(/archive: claude \w+ is open in claude \(idle\)/);
    await d.press('a');
    await d.waitForText('sessions 7 (with archived)');
    expect(d.frame()).toContain(shortId(s.mig!.id));
  });

  it('q quits at once with nothing running; asks while agents work (Ctrl-C twice quits)', async () => {
    d = await renderDashboard();
    await d.press('q');
    await d.waitForText('2 agents are still working');
    await d.press('escape');
    await d.press('ctrl+c', 'ctrl+c');
    expect(d.calls).toEqual([{ name: 'quit', args: [] }]);
    d.cleanup();
    d = await renderDashboard({ demo: false });
    expect(d.frame()).toContain('│ no sessions yet: n opens claude, s ');
    expect(d.frame()).toContain('│ starts an agent ');
    await d.press('q');
    expect(d.calls).toEqual([{ name: 'quit', args: [] }]);
  });

  it('narrow terminals show one pane at a time; Tab switches', async () => {
    d = await renderDashboard({ columns: 70, rows: 20 });
    expect(d.frame()).toContain('sessions 7');
    expect(d.frame()).not.toContain('log ·');
    await d.press('down', 'tab');
    expect(d.frame()).toContain('log · test-runner');
    expect(d.frame()).not.toContain('sessions 7');
  });

  it('scrolls the log (PgUp stops following, End follows again)', async () => {
    d = await renderDashboard({ rows: 14 });
    const s = d.sessions;
    await d.press('down', 'down', 'down');
    await d.waitForText('Writing a fix proposal now');
    await d.press('pageup');
    await d.waitForText('paused');
    expect(d.frame()).not.toContain('Writing a fix proposal now');
    appendEvents(s.rev!.logPath, [{ type: 'text', text: 'appended while paused' }]);
    await d.waitFor((f) => /more ↓/.test(f), 'the "more below" marker');
    expect(d.frame()).not.toContain('appended while paused');
    await d.press('tab', 'end');
    await d.waitForText('appended while paused');
    expect(d.frame()).toContain('following');
  });
});

// The keymap is the single declaration of keys: no key means two things in one scope, every
// command is runnable, footer and help come from it, and keys resolve with reasons.
import { describe, expect, it } from 'vitest';
import {
  bindingFor,
  displayKey,
  footerBindings,
  helpGroups,
  KEYMAP,
  scopeChain,
  type KeyContext,
  type Scope,
} from '../../src/ui/keymap.js';
import { keyName, resolveKey, splitKeys } from '../../src/ui/input/keys.js';
import type { CommandEnv } from '../../src/ui/input/command-env.js';
import { runCommand } from '../../src/ui/input/run-command.js';
import type { SessionView } from '../../src/feeds/session-tree.js';
import { initialUiState } from '../../src/ui/state/ui-state.js';
import { treeView } from '../../src/ui/view.js';
import { hintSegments } from '../../src/ui/components/footer.js';
import { themes } from '../../src/ui/theme.js';
import { findLogMatch } from '../../src/ui/input/log-search.js';

const SCOPES: Scope[] = ['tree', 'log', 'help', 'confirm', 'picker', 'input'];

function session(p: Partial<SessionView> = {}): SessionView {
  return {
    id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
    parentId: null,
    type: 'reviewer',
    runtime: 'claude',
    status: 'running',
    title: null,
    prompt: null,
    lastText: null,
    model: null,
    costUsd: null,
    tokensIn: null,
    tokensOut: null,
    archivedAt: null,
    createdAt: 0,
    updatedAt: 0,
    endedAt: null,
    logPath: null,
    nativeSessionId: 'c0ffee00-0000-4000-8000-000000000000',
    activity: null,
    runStartedAt: null,
    error: null,
    ...p,
  };
}
const ctx = (selected: SessionView | null, p: Partial<KeyContext> = {}): KeyContext => ({
  selected,
  selectedSubtree: selected ? [selected] : [],
  filterActive: false,
  searchActive: false,
  narrow: false,
  runningAgents: 0,
  selectedProcesses: {},
  ptySessions: 0,
  confirming: null,
  ...p,
});

describe('keymap', () => {
  it('has unique ids and no key bound twice in any scope a key can reach', () => {
    expect(new Set(KEYMAP.map((b) => b.id)).size).toBe(KEYMAP.length);
    for (const scope of SCOPES) {
      const seen = new Map<string, string>();
      for (const s of scopeChain(scope)) {
        for (const b of KEYMAP.filter((x) => x.scope === s)) {
          for (const k of b.keys) {
            expect(seen.get(k), `${scope}: '${k}' is ${seen.get(k)} and ${b.id}`).toBeUndefined();
            seen.set(k, b.id);
          }
        }
      }
    }
  });

  it('describes every binding and lists each in the help once', () => {
    for (const b of KEYMAP) {
      expect(b.description.length, b.id).toBeGreaterThan(5);
      expect(b.label.length, b.id).toBeGreaterThan(0);
      expect(b.keys.length, b.id).toBeGreaterThan(0);
    }
    expect(helpGroups().flatMap((g) => g.bindings)).toHaveLength(KEYMAP.length);
  });

  it('orders footer hints by their footer rank, pane keys first', () => {
    const tree = footerBindings('tree').map((b) => b.id);
    expect(tree.slice(0, 3)).toEqual(['tree.down', 'pane.switch', 'session.open']);
    expect(tree.at(-1)).toBe('app.quit');
    expect(footerBindings('confirm').map((b) => b.id)).toEqual(['confirm.yes', 'confirm.no', 'confirm.stopPty']);
  });

  it('runs every command without throwing (no id is left unhandled)', () => {
    const sel = session();
    const tree = treeView([sel], initialUiState, false);
    const env: CommandEnv = {
      ui: initialUiState,
      dispatch: () => {},
      tree,
      log: { lines: [], top: 0, height: 10, width: 40 },
      help: { height: 10, lines: 40 },
      sessions: [sel],
      processes: new Map(),
      actions: new Proxy({} as CommandEnv['actions'], {
        get: () => () =>
          Promise.resolve({ results: [], sessionIds: [], choices: [], problems: [], delivered: 'stdin' }),
      }),
    };
    for (const b of KEYMAP) expect(() => runCommand(b.id, env), b.id).not.toThrow();
  });

  it('shows keys readably', () => {
    expect(displayKey('enter')).toBe('⏎');
    expect(displayKey('ctrl+c')).toBe('C-c');
    expect(displayKey('shift+tab')).toBe('S-Tab');
    expect(displayKey('G')).toBe('G');
  });
});

describe('key resolution', () => {
  it('names Ink key events', () => {
    expect(keyName('', { upArrow: true })).toBe('up');
    expect(keyName('', { tab: true, shift: true })).toBe('shift+tab');
    expect(keyName('c', { ctrl: true })).toBe('ctrl+c');
    expect(keyName('G', { shift: true })).toBe('G');
    expect(keyName('', { return: true })).toBe('enter');
    expect(keyName('abc', {})).toBeNull();
  });

  it('splits a chunk of keys: characters outside text fields, text (split at Enter) inside', () => {
    expect(splitKeys('jj', {}, false)).toEqual([
      { name: 'j', input: 'j' },
      { name: 'j', input: 'j' },
    ]);
    expect(splitKeys('hi there\r', {}, true)).toEqual([
      { name: null, input: 'hi there' },
      { name: 'enter', input: '' },
    ]);
    expect(splitKeys('a\x7fb', {}, true).map((k) => k.name)).toEqual([null, 'backspace', null]);
  });

  it('resolves a key to a command, text, a reason it is disabled, or why it means nothing here', () => {
    const tui = session({ type: 'tui', status: 'idle' });
    expect(resolveKey('j', 'j', 'tree', ctx(tui))).toMatchObject({ kind: 'command', binding: { id: 'tree.down' } });
    expect(resolveKey('j', 'j', 'log', ctx(tui))).toMatchObject({ kind: 'command', binding: { id: 'log.down' } });
    expect(resolveKey('pageup', '', 'tree', ctx(tui))).toMatchObject({
      kind: 'command',
      binding: { id: 'log.pageUp' },
    });
    expect(resolveKey(null, 'hello', 'input', ctx(tui))).toEqual({ kind: 'text', text: 'hello' });
    expect(resolveKey('q', 'q', 'input', ctx(tui))).toEqual({ kind: 'text', text: 'q' });
    const m = resolveKey('m', 'm', 'tree', ctx(tui));
    expect(m).toMatchObject({ kind: 'disabled', reason: expect.stringContaining('is an interactive session') });
    const done = session({ status: 'done' });
    expect(resolveKey('i', 'i', 'tree', ctx(done))).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('is done: nothing to interrupt'),
    });
    expect(resolveKey('i', 'i', 'tree', ctx(session()))).toMatchObject({
      kind: 'command',
      binding: { id: 'agent.interrupt' },
    });
    // A non-Claude agent opens in its own CLI (the hand-over resumes it the way checkout does).
    expect(resolveKey('enter', '', 'tree', ctx(session({ runtime: 'codex' })))).toMatchObject({
      kind: 'command',
      binding: { id: 'session.open' },
    });
    expect(
      resolveKey('enter', '', 'tree', ctx(session({ runtime: 'codex', status: 'done', nativeSessionId: null }))),
    ).toMatchObject({ kind: 'disabled', reason: expect.stringContaining('never started a codex session') });
    expect(resolveKey('h', 'h', 'log', ctx(tui))).toEqual({
      kind: 'unbound',
      reason: 'h (fold) works in the tree pane: Tab switches panes',
    });
    expect(resolveKey('~', '~', 'tree', ctx(tui))).toEqual({
      kind: 'unbound',
      reason: '~ is not a key here: ? lists the keys',
    });
    expect(resolveKey('z', 'z', 'confirm', ctx(tui))).toEqual({ kind: 'unbound', reason: 'z: answer y or n' });
    expect(bindingFor('escape', 'help')?.id).toBe('help.close');
  });

  it('Enter and t on a worktree agent whose worktree was pruned say so instead of failing later', () => {
    const gone = session({
      status: 'done',
      worktreePath: '/nonexistent/klaude-pruned-worktree',
      worktreeBranch: 'klaude/x-general',
    });
    for (const [key, input] of [
      ['enter', ''],
      ['t', 't'],
    ] as const) {
      expect(resolveKey(key, input, 'tree', ctx(gone))).toMatchObject({
        kind: 'disabled',
        reason: expect.stringContaining("worktree was pruned: it can't be opened or talked to again"),
      });
    }
    // Still there: both act.
    const here = session({ status: 'done', worktreePath: process.cwd(), worktreeBranch: 'klaude/x-general' });
    expect(resolveKey('t', 't', 'tree', ctx(here))).toMatchObject({ kind: 'command' });
  });

  it('talk (t) says why it cannot act: busy elsewhere, nothing to talk to', () => {
    const t = (c: KeyContext) => resolveKey('t', 't', 'tree', c);
    expect(t(ctx(null))).toMatchObject({ kind: 'disabled', reason: expect.stringContaining('no session selected') });
    expect(t(ctx(session({ status: 'done' })))).toMatchObject({ kind: 'command', binding: { id: 'session.talk' } });
    expect(t(ctx(session({ status: 'idle' }), { selectedProcesses: { pty: 4242 } }))).toMatchObject({
      kind: 'command',
    });
    expect(t(ctx(session({ type: 'tui', status: 'idle' }), { selectedProcesses: { claude: 777 } }))).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('is open in a klaude foreground (claude pid 777): talk to it there'),
    });
    expect(t(ctx(session(), { selectedProcesses: { runtime: 778 } }))).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('is running headless'),
    });
    expect(t(ctx(session({ status: 'done', nativeSessionId: null })))).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('never started a conversation: there is nothing to talk to'),
    });
    expect(t(ctx(session({ status: 'done', nativeSessionId: null, runtime: 'codex' })))).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('has no codex session yet'),
    });
  });

  it('v toggles the live screen of PTY sessions only; x stops PTY sessions only when quitting with some running', () => {
    expect(resolveKey('v', 'v', 'tree', ctx(session()))).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('is not running in a PTY session: t starts one'),
    });
    expect(resolveKey('v', 'v', 'log', ctx(session(), { selectedProcesses: { pty: 1 } }))).toMatchObject({
      kind: 'command',
      binding: { id: 'view.screen' },
    });
    const tui = session({ type: 'tui' });
    expect(resolveKey('x', 'x', 'confirm', ctx(tui, { confirming: 'interrupt', ptySessions: 2 }))).toMatchObject({
      kind: 'disabled',
      reason: 'only when quitting (q)',
    });
    expect(resolveKey('x', 'x', 'confirm', ctx(tui, { confirming: 'quit', ptySessions: 0 }))).toMatchObject({
      kind: 'disabled',
      reason: 'no PTY sessions are running',
    });
    expect(resolveKey('x', 'x', 'confirm', ctx(tui, { confirming: 'quit', ptySessions: 2 }))).toMatchObject({
      kind: 'command',
      binding: { id: 'confirm.stopPty' },
    });
    expect(bindingFor('q', 'tree')!.description).toContain('PTY sessions keep running');
  });

  it('Enter on a PTY session says press t; Esc clears an applied filter; y copies the id; / n N search in the log pane', () => {
    expect(resolveKey('enter', '\r', 'tree', ctx(session(), { selectedProcesses: { pty: 7 } }))).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('runs in a PTY session: press t to talk to it'),
    });
    expect(resolveKey('escape', '\x1b', 'tree', ctx(session(), { filterActive: true }))).toMatchObject({
      kind: 'command',
      binding: { id: 'view.clearFilter' },
    });
    expect(resolveKey('y', 'y', 'log', ctx(session()))).toMatchObject({
      kind: 'command',
      binding: { id: 'session.copyId' },
    });
    expect(resolveKey('/', '/', 'tree', ctx(session()))).toMatchObject({
      kind: 'command',
      binding: { id: 'view.filter' },
    });
    expect(resolveKey('/', '/', 'log', ctx(session()))).toMatchObject({
      kind: 'command',
      binding: { id: 'log.search' },
    });
    expect(resolveKey('n', 'n', 'log', ctx(session(), { searchActive: true }))).toMatchObject({
      kind: 'command',
      binding: { id: 'log.searchNext' },
    });
    expect(resolveKey('N', 'N', 'log', ctx(session()))).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('no search'),
    });
    expect(resolveKey('n', 'n', 'tree', ctx(session()))).toMatchObject({
      kind: 'command',
      binding: { id: 'session.new' },
    });
  });

  it('the confirm footer offers x only when quitting with PTY sessions running', () => {
    const ids = (c: KeyContext) =>
      hintSegments('confirm', c, 200, themes.noColor)
        .map((s) => s.text)
        .join('');
    expect(ids(ctx(session(), { confirming: 'interrupt', ptySessions: 2 }))).not.toContain('stop PTY');
    expect(ids(ctx(session(), { confirming: 'quit', ptySessions: 2 }))).toContain('x stop PTY sessions');
  });

  it('a footer too narrow for every hint keeps `? help  q quit` and drops others', () => {
    const line = (w: number) =>
      hintSegments('tree', ctx(session()), w, themes.noColor)
        .map((s) => s.text)
        .join('');
    expect(line(400)).toMatch(/⏎ open .* \? help {2}q quit$/);
    for (const w of [120, 80, 40]) {
      expect(line(w)).toMatch(/\? help {2}q quit$/);
      expect(line(w).length).toBeLessThanOrEqual(w);
    }
    expect(line(80).length).toBeLessThan(line(400).length);
  });

  it('log search finds the next / previous matching line, wrapping around', () => {
    const lines = ['alpha', 'Beta one', 'gamma', 'beta two'].map((text) => ({ text }));
    expect(findLogMatch(lines, 'beta', 0, 1)).toBe(1);
    expect(findLogMatch(lines, 'BETA', 2, 1)).toBe(3);
    expect(findLogMatch(lines, 'beta', 4, 1)).toBe(1); // wraps
    expect(findLogMatch(lines, 'beta', 2, -1)).toBe(1);
    expect(findLogMatch(lines, 'beta', 0, -1)).toBe(3);
    expect(findLogMatch(lines, 'delta', 0, 1)).toBe(-1);
    expect(findLogMatch(lines, '  ', 0, 1)).toBe(-1);
  });

  it('refuses to archive anything live in the subtree', () => {
    const parent = session({ status: 'done' });
    const child = session({ id: '01JBBBBBBBBBBBBBBBBBBBBBBB', parentId: parent.id, status: 'waiting', type: 'coder' });
    const r = resolveKey('d', 'd', 'tree', ctx(parent, { selectedSubtree: [parent, child] }));
    expect(r).toMatchObject({
      kind: 'disabled',
      reason: expect.stringContaining('its sub-agent coder BBBBBBBB is waiting'),
    });
    expect(resolveKey('d', 'd', 'tree', ctx(parent))).toMatchObject({ kind: 'command' });
  });
});

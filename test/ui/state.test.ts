// The tree model and the UI reducer: pure, table-like checks.
import { describe, expect, it } from 'vitest';
import { buildRows, countByStatus, runningAgents, subtreeIds, type SessionView } from '../../src/feeds/session-tree.js';
import { initialUiState, logWindowTop, uiReducer, type UiAction, type UiState } from '../../src/ui/state/ui-state.js';

let n = 0;
function s(p: Partial<SessionView> & { id: string }): SessionView {
  return {
    parentId: null,
    type: 'general',
    runtime: 'claude',
    status: 'done',
    title: null,
    prompt: null,
    lastText: null,
    model: null,
    costUsd: null,
    tokensIn: null,
    tokensOut: null,
    archivedAt: null,
    createdAt: ++n,
    updatedAt: 0,
    endedAt: null,
    logPath: null,
    nativeSessionId: null,
    activity: null,
    runStartedAt: null,
    error: null,
    ...p,
  };
}

const A = s({ id: 'A', type: 'tui' });
const A1 = s({ id: 'A1', parentId: 'A', type: 'reviewer', status: 'running' });
const A2 = s({ id: 'A2', parentId: 'A', type: 'tester' });
const A11 = s({ id: 'A11', parentId: 'A1', type: 'coder', status: 'waiting' });
const B = s({ id: 'B', type: 'tui' });
const ORPHAN = s({ id: 'O', parentId: 'gone', type: 'lost' });
const ALL = [A, A1, A2, A11, B, ORPHAN];
const ids = (rows: { session: SessionView }[]) => rows.map((r) => r.session.id);
const opts = { collapsed: new Set<string>(), filter: '', showArchived: false };

describe('tree', () => {
  it('orders roots newest first, children oldest first, depth-first; orphans become roots', () => {
    const rows = buildRows(ALL, opts);
    expect(ids(rows)).toEqual(['O', 'B', 'A', 'A1', 'A11', 'A2']);
    expect(rows.map((r) => r.depth)).toEqual([0, 0, 0, 1, 2, 1]);
    expect(rows.find((r) => r.session.id === 'A1')?.hasChildren).toBe(true);
  });

  it('folds, filters (keeping ancestors, ignoring folds) and hides archived sessions', () => {
    expect(ids(buildRows(ALL, { ...opts, collapsed: new Set(['A1']) }))).toEqual(['O', 'B', 'A', 'A1', 'A2']);
    const f = buildRows(ALL, { ...opts, filter: 'coder', collapsed: new Set(['A', 'A1']) });
    expect(ids(f)).toEqual(['A', 'A1', 'A11']);
    expect(f.map((r) => r.match)).toEqual([false, false, true]);
    expect(ids(buildRows(ALL, { ...opts, filter: 'waiting coder' }))).toEqual(['A', 'A1', 'A11']);
    const archived = ALL.map((x) => (x.id === 'A2' ? { ...x, archivedAt: 1 } : x));
    expect(ids(buildRows(archived, opts))).not.toContain('A2');
    expect(ids(buildRows(archived, { ...opts, showArchived: true }))).toContain('A2');
    expect(countByStatus(archived).done).toBe(3);
  });

  it('finds subtrees and the agents that are working', () => {
    expect(subtreeIds(ALL, 'A').sort()).toEqual(['A', 'A1', 'A11', 'A2']);
    expect(
      runningAgents(ALL)
        .map((x) => x.id)
        .sort(),
    ).toEqual(['A1', 'A11']);
  });
});

describe('ui reducer', () => {
  const rows = buildRows(ALL, opts);
  const run = (state: UiState, ...actions: UiAction[]) => actions.reduce(uiReducer, state);

  it('moves and keeps the selection by id, falling back to the index when it disappears', () => {
    let st = run(initialUiState, { type: 'move', rows, to: { by: 1 } }, { type: 'move', rows, to: { by: 1 } });
    expect(st.selectedId).toBe('A');
    st = run(st, { type: 'move', rows, to: 'last' });
    expect(st.selectedId).toBe('A2');
    st = run(st, { type: 'move', rows, to: { by: 10 } });
    expect(st.selectedIndex).toBe(5);
    expect(run(st, { type: 'move', rows, to: 'first' }).selectedId).toBe('O');
  });

  it('folds the selected node, or goes to its parent; unfolds, or goes to the first child', () => {
    let st = run(initialUiState, { type: 'select', id: 'A1', index: 3 });
    st = run(st, { type: 'fold', rows, open: false });
    expect(st.collapsed.has('A1')).toBe(true);
    const folded = buildRows(ALL, { ...opts, collapsed: st.collapsed });
    st = run(st, { type: 'fold', rows: folded, open: false });
    expect(st.selectedId).toBe('A');
    st = run(st, { type: 'select', id: 'A1' }, { type: 'fold', rows: folded, open: true });
    expect(st.collapsed.has('A1')).toBe(false);
    st = run(st, { type: 'fold', rows, open: true });
    expect(st.selectedId).toBe('A11');
  });

  it('scrolls the log: up stops following, reaching the end follows again; a new selection follows', () => {
    let st = run(initialUiState, { type: 'scrollLog', by: -5, total: 100, height: 20 });
    expect(st.follow).toBe(false);
    expect(logWindowTop(st, 100, 20)).toBe(75);
    expect(logWindowTop(st, 150, 20)).toBe(75); // new lines do not move a paused view
    st = run(st, { type: 'scrollLog', by: 5, total: 100, height: 20 });
    expect(st.follow).toBe(true);
    st = run(st, { type: 'toggleFollow', total: 100, height: 20 });
    expect(st).toMatchObject({ follow: false, logTop: 80 });
    st = run(st, { type: 'scrollLog', by: 'top', total: 100, height: 20 }, { type: 'select', id: 'B' });
    expect(st.follow).toBe(true);
  });

  it('edits the text of the open input, and the filter', () => {
    let st = run(
      initialUiState,
      { type: 'openMessage', sessionId: 'A1' },
      { type: 'edit', op: 'insert', text: 'hello worx' },
    );
    st = run(
      st,
      { type: 'edit', op: 'backspace' },
      { type: 'edit', op: 'insert', text: 'ld again' },
      { type: 'edit', op: 'deleteWord' },
    );
    expect(st.modal).toEqual({ kind: 'message', sessionId: 'A1', text: 'hello world' });
    st = run(st, { type: 'closeModal' }, { type: 'filterStart' }, { type: 'edit', op: 'insert', text: 'rev' });
    expect(st.filter).toBe('rev');
    expect(run(st, { type: 'filterEnd', keep: false }).filter).toBe('');
    expect(run(st, { type: 'filterEnd', keep: true })).toMatchObject({ filter: 'rev', filterEditing: false });
  });

  it('walks the start dialog: choices arrive, pick, prompt', () => {
    let st = run(initialUiState, { type: 'openStart', selectedId: 'A', under: true });
    expect(st.modal).toMatchObject({ kind: 'start', step: 'type', choices: null });
    st = run(
      st,
      {
        type: 'startChoices',
        choices: [
          { name: 'a', description: '', source: 'x' },
          { name: 'b', description: '', source: 'x' },
        ],
        problems: [],
      },
      { type: 'pick', by: 5 },
      { type: 'startStep', step: 'prompt' },
      { type: 'edit', op: 'insert', text: 'go' },
    );
    expect(st.modal).toMatchObject({ kind: 'start', step: 'prompt', index: 1, text: 'go', parentId: 'A' });
  });

  it('toggles the start dialog between under the selected row and top level', () => {
    let st = run(initialUiState, { type: 'openStart', selectedId: 'A', under: false });
    expect(st.modal).toMatchObject({ kind: 'start', selectedId: 'A', parentId: null });
    st = run(st, { type: 'startParent' });
    expect(st.modal).toMatchObject({ parentId: 'A' });
    st = run(st, { type: 'startParent' });
    expect(st.modal).toMatchObject({ parentId: null });
    // Nothing was selected: top level is the only place.
    st = run(initialUiState, { type: 'openStart', selectedId: null, under: true }, { type: 'startParent' });
    expect(st.modal).toMatchObject({ selectedId: null, parentId: null });
  });
});

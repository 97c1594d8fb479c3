/** The tree's selection and folds, and the right pane's window over the log or a diff. */
import type { TreeRow } from '../../feeds/session-tree.js';
import type { LogAction, TreeAction, UiState } from './ui-types.js';

/** Index of the selected row in `rows` (the stored id, else the nearest index), -1 when empty. */
export function selectedRowIndex(
  state: Pick<UiState, 'selectedId' | 'selectedIndex'>,
  rows: readonly TreeRow[],
): number {
  if (rows.length === 0) return -1;
  if (state.selectedId !== null) {
    // A session can be on two rows (all projects: needs you, and its project): the one moved to.
    if (rows[state.selectedIndex]?.session.id === state.selectedId) return state.selectedIndex;
    const i = rows.findIndex((r) => r.session.id === state.selectedId);
    if (i !== -1) return i;
  }
  return Math.min(Math.max(0, state.selectedIndex), rows.length - 1);
}

export const clamp = (n: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, n));

/** The first shown log line for this state and content. */
export function logWindowTop(state: Pick<UiState, 'follow' | 'logTop'>, total: number, height: number): number {
  const maxTop = Math.max(0, total - height);
  return state.follow ? maxTop : clamp(state.logTop, 0, maxTop);
}

function selectIndex(state: UiState, rows: readonly TreeRow[], index: number): UiState {
  if (rows.length === 0) return state;
  const i = clamp(index, 0, rows.length - 1);
  const id = rows[i]!.session.id;
  if (id === state.selectedId && i === state.selectedIndex) return state;
  // A new selection shows its log from the end.
  const changed = id !== state.selectedId;
  return {
    ...state,
    selectedId: id,
    selectedIndex: i,
    ...(changed ? { follow: true, logTop: 0, diff: null, review: null } : {}),
  };
}

export function treeReducer(state: UiState, a: TreeAction): UiState {
  switch (a.type) {
    case 'move': {
      const cur = selectedRowIndex(state, a.rows);
      const to =
        a.to === 'first' ? 0 : a.to === 'last' ? a.rows.length - 1 : typeof a.to === 'number' ? a.to : cur + a.to.by;
      return selectIndex(state, a.rows, to);
    }
    case 'select':
      if (a.id === state.selectedId) return state;
      return {
        ...state,
        selectedId: a.id,
        selectedIndex: a.index ?? state.selectedIndex,
        follow: true,
        logTop: 0,
        diff: null,
        review: null,
      };
    case 'fold':
      return fold(state, a);
    case 'focus':
      return { ...state, focus: a.pane ?? (state.focus === 'tree' ? 'log' : 'tree') };
  }
}

function fold(state: UiState, a: Extract<TreeAction, { type: 'fold' }>): UiState {
  const i = selectedRowIndex(state, a.rows);
  const row = a.rows[i];
  if (!row) return state;
  const id = row.session.id;
  if (a.open) {
    if (row.collapsed) return { ...state, collapsed: without(state.collapsed, id) };
    if (row.hasChildren) return selectIndex(state, a.rows, i + 1);
    return state;
  }
  if (row.hasChildren && !row.collapsed) return { ...state, collapsed: new Set([...state.collapsed, id]) };
  // Leaf or folded: go to the parent row.
  for (let p = i - 1; p >= 0; p--) if (a.rows[p]!.depth < row.depth) return selectIndex(state, a.rows, p);
  return state;
}

export function logReducer(state: UiState, a: LogAction): UiState {
  switch (a.type) {
    case 'scrollLog': {
      const maxTop = Math.max(0, a.total - a.height);
      if (a.by === 'bottom') return { ...state, follow: true, logTop: maxTop };
      if (a.by === 'top') return { ...state, follow: maxTop === 0, logTop: 0 };
      const top = clamp(logWindowTop(state, a.total, a.height) + a.by, 0, maxTop);
      return { ...state, logTop: top, follow: top >= maxTop };
    }
    case 'toggleFollow':
      return state.follow
        ? { ...state, follow: false, logTop: logWindowTop(state, a.total, a.height) }
        : { ...state, follow: true, logTop: Math.max(0, a.total - a.height) };
    case 'logJump':
      return { ...state, logTop: clamp(a.line, 0, Math.max(0, a.total - a.height)), follow: false };
    case 'showDiff':
      if (a.sessionId === null) return state.diff ? { ...state, diff: null, follow: true, logTop: 0 } : state;
      // A diff is read from the top.
      return {
        ...state,
        follow: false,
        logTop: 0,
        review: null,
        diff: { sessionId: a.sessionId, state: 'loading', heading: '', patch: '', files: 0, error: null },
      };
    case 'showReviews':
    case 'reviewCursor':
    case 'reviewFold':
      return reviewReducer(state, a);
    case 'diffLoaded': {
      if (state.diff?.sessionId !== a.sessionId) return state; // closed, or another one asked for since
      const d = a.diff;
      return 'error' in d
        ? { ...state, diff: { ...state.diff, state: 'error', error: d.error } }
        : {
            ...state,
            diff: { ...state.diff, state: 'ready', heading: d.heading, patch: d.patch, files: d.files, error: null },
          };
    }
  }
}

function reviewReducer(
  state: UiState,
  a: Extract<LogAction, { type: 'showReviews' | 'reviewCursor' | 'reviewFold' }>,
): UiState {
  if (a.type === 'showReviews') {
    if (a.sessionId === null) return state.review ? { ...state, review: null, follow: true, logTop: 0 } : state;
    // Read from the top, as a diff; the diff view closes.
    const review = { sessionId: a.sessionId, cursor: a.cursor ?? 0, folded: new Set<string>() };
    return { ...state, review, diff: null, follow: false, logTop: 0 };
  }
  const r = state.review;
  if (!r) return state;
  if (a.type === 'reviewCursor') {
    const cursor = clamp(r.cursor + a.by, 0, Math.max(0, a.count - 1));
    return cursor === r.cursor ? state : { ...state, review: { ...r, cursor } };
  }
  const folded = r.folded.has(a.reviewerId) ? without(r.folded, a.reviewerId) : new Set([...r.folded, a.reviewerId]);
  return { ...state, review: { ...r, folded } };
}

function without(set: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(set);
  next.delete(id);
  return next;
}

/**
 * Dashboard UI state and its reducer. Every change is a `UiAction` (discriminated union); the
 * reducer is pure, so key handling is testable without a terminal. Actions that depend on what
 * is on screen (tree rows, log line count, pane height) carry it in the payload.
 */
import type { TreeRow } from '../../feeds/session-tree.js';
import type { Notice } from './notice.js';

export type Pane = 'tree' | 'log';

export interface AgentChoice {
  name: string;
  description: string;
  /** Where it is defined ('project', 'user', 'built-in'). */
  source: string;
}

export type ConfirmIntent =
  | { kind: 'open'; sessionId: string }
  | { kind: 'interrupt'; sessionIds: string[] }
  | { kind: 'archive'; sessionIds: string[]; archive: boolean }
  /** Allow a permission request and add its suggested rule to .claude/settings.local.json. */
  | { kind: 'allowAlways'; sessionId: string; approvalId: number }
  /** `ptySessions`: PTY sessions of the project running now (they keep running unless stopped). */
  | { kind: 'quit'; ptySessions: number };

export type Modal =
  | { kind: 'help'; scroll: number }
  | { kind: 'confirm'; intent: ConfirmIntent; message: string; dangerous: boolean }
  | {
      kind: 'start';
      step: 'type' | 'prompt';
      /** null while the definitions load. */
      choices: AgentChoice[] | null;
      problems: string[];
      index: number;
      parentId: string | null;
      text: string;
    }
  | { kind: 'message'; sessionId: string; text: string; rename?: boolean }
  /** Deny a permission request; `text` is the optional reason shown to the agent. */
  | { kind: 'deny'; sessionId: string; approvalId: number; what: string; text: string };

/** The right pane shows an agent's diff instead of its log (`c`). */
export interface DiffState {
  sessionId: string;
  state: 'loading' | 'ready' | 'error';
  heading: string;
  patch: string;
  files: number;
  error: string | null;
}

export type { Notice };

export interface UiState {
  focus: Pane;
  selectedId: string | null;
  /** Where the selection was; used when the selected session disappears (archived, filtered). */
  selectedIndex: number;
  collapsed: ReadonlySet<string>;
  filter: string;
  filterEditing: boolean;
  /** The log pane's search (`/` there; n/N move between matches). */
  search: string;
  searchEditing: boolean;
  showArchived: boolean;
  groupByState: boolean;
  /** The log pane sticks to the end; scrolling up turns it off, End turns it on. */
  follow: boolean;
  /** First shown log line when not following. */
  logTop: number;
  expandResults: boolean;
  /** For a session running in a PTY: its live screen in the right pane (else its log). */
  showScreen: boolean;
  /** The selected agent's diff in the right pane (null: its log). Selecting another session closes it. */
  diff: DiffState | null;
  modal: Modal | null;
  notice: Notice | null;
  /** An action is in flight (start, message, …): shown in the footer. */
  busy: string | null;
}

export const initialUiState: UiState = {
  focus: 'tree',
  selectedId: null,
  selectedIndex: 0,
  collapsed: new Set(),
  filter: '',
  filterEditing: false,
  search: '',
  searchEditing: false,
  showArchived: false,
  groupByState: false,
  follow: true,
  logTop: 0,
  expandResults: false,
  showScreen: true,
  diff: null,
  modal: null,
  notice: null,
  busy: null,
};

export type LogScroll = number | 'top' | 'bottom';

/** The tree's selection, its folds, and which pane has focus. */
export type TreeAction =
  | { type: 'move'; rows: readonly TreeRow[]; to: number | 'first' | 'last' | { by: number } }
  | { type: 'select'; id: string | null; index?: number }
  | { type: 'fold'; rows: readonly TreeRow[]; open: boolean }
  | { type: 'focus'; pane?: Pane };

/** The right pane's window over the log, and the diff shown in the log's place. */
export type LogAction =
  | { type: 'scrollLog'; by: LogScroll; total: number; height: number }
  | { type: 'toggleFollow'; total: number; height: number }
  /** Show the log from this line (a search match), no longer following. */
  | { type: 'logJump'; line: number; total: number; height: number }
  /** Show this session's diff (loading until diffLoaded), or back to the log when null. */
  | { type: 'showDiff'; sessionId: string | null }
  | {
      type: 'diffLoaded';
      sessionId: string;
      diff: { heading: string; patch: string; files: number } | { error: string };
    };

/** What is shown: results in full, the screen, archived sessions; the tree filter and the log search. */
export type ViewAction =
  | { type: 'toggleExpand' | 'toggleScreen' | 'toggleArchived' | 'toggleGroup' }
  | { type: 'filterStart' }
  | { type: 'filterEnd'; keep: boolean }
  | { type: 'searchStart' }
  | { type: 'searchEnd'; keep: boolean };

/** Opening, moving in and closing the dialogs (help, confirm, start, message, deny). */
export type ModalAction =
  | { type: 'openHelp' }
  | { type: 'scrollHelp'; by: number; max: number }
  | { type: 'confirm'; intent: ConfirmIntent; message: string; dangerous: boolean }
  | { type: 'openStart'; parentId: string | null }
  | { type: 'startChoices'; choices: AgentChoice[]; problems: string[] }
  | { type: 'pick'; by: number }
  | { type: 'startStep'; step: 'type' | 'prompt' }
  | { type: 'openMessage'; sessionId: string; rename?: boolean; text?: string }
  | { type: 'openDeny'; sessionId: string; approvalId: number; what: string }
  | { type: 'closeModal' };

export type UiAction =
  | TreeAction
  | LogAction
  | ViewAction
  | ModalAction
  | { type: 'edit'; op: 'insert'; text: string }
  | { type: 'edit'; op: 'backspace' | 'clear' | 'deleteWord' }
  | { type: 'notice'; notice: Notice | null }
  | { type: 'busy'; text: string | null };

/** Index of the selected row in `rows` (the stored id, else the nearest index), -1 when empty. */
export function selectedRowIndex(
  state: Pick<UiState, 'selectedId' | 'selectedIndex'>,
  rows: readonly TreeRow[],
): number {
  if (rows.length === 0) return -1;
  if (state.selectedId !== null) {
    const i = rows.findIndex((r) => r.session.id === state.selectedId);
    if (i !== -1) return i;
  }
  return Math.min(Math.max(0, state.selectedIndex), rows.length - 1);
}

const clamp = (n: number, lo: number, hi: number): number => Math.max(lo, Math.min(hi, n));

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
  return { ...state, selectedId: id, selectedIndex: i, ...(changed ? { follow: true, logTop: 0, diff: null } : {}) };
}

function editText(text: string, a: Extract<UiAction, { type: 'edit' }>): string {
  switch (a.op) {
    case 'insert':
      return text + a.text;
    case 'backspace':
      return [...text].slice(0, -1).join('');
    case 'clear':
      return '';
    case 'deleteWord':
      return text.replace(/\s*\S+\s*$/, '');
  }
}

export function uiReducer(state: UiState, a: UiAction): UiState {
  switch (a.type) {
    case 'move':
    case 'select':
    case 'fold':
    case 'focus':
      return treeReducer(state, a);
    case 'scrollLog':
    case 'toggleFollow':
    case 'logJump':
    case 'showDiff':
    case 'diffLoaded':
      return logReducer(state, a);
    case 'toggleExpand':
    case 'toggleScreen':
    case 'toggleArchived':
    case 'toggleGroup':
    case 'filterStart':
    case 'filterEnd':
    case 'searchStart':
    case 'searchEnd':
      return viewReducer(state, a);
    case 'openHelp':
    case 'scrollHelp':
    case 'confirm':
    case 'openStart':
    case 'startChoices':
    case 'pick':
    case 'startStep':
    case 'openMessage':
    case 'openDeny':
    case 'closeModal':
      return modalReducer(state, a);
    case 'edit':
      return edit(state, a);
    case 'notice':
      return state.notice === a.notice ? state : { ...state, notice: a.notice };
    case 'busy':
      return { ...state, busy: a.text };
  }
}

function treeReducer(state: UiState, a: TreeAction): UiState {
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

function logReducer(state: UiState, a: LogAction): UiState {
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
        diff: { sessionId: a.sessionId, state: 'loading', heading: '', patch: '', files: 0, error: null },
      };
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

function viewReducer(state: UiState, a: ViewAction): UiState {
  switch (a.type) {
    case 'toggleExpand':
      return { ...state, expandResults: !state.expandResults };
    case 'toggleScreen':
      return { ...state, showScreen: !state.showScreen };
    case 'toggleArchived':
      return { ...state, showArchived: !state.showArchived };
    case 'toggleGroup':
      return { ...state, groupByState: !state.groupByState };
    case 'filterStart':
      return { ...state, filterEditing: true };
    case 'filterEnd':
      return { ...state, filterEditing: false, filter: a.keep ? state.filter : '' };
    case 'searchStart':
      return { ...state, searchEditing: true, search: '' };
    case 'searchEnd':
      return { ...state, searchEditing: false, search: a.keep ? state.search : '' };
  }
}

function modalReducer(state: UiState, a: ModalAction): UiState {
  switch (a.type) {
    case 'openHelp':
      return { ...state, modal: { kind: 'help', scroll: 0 } };
    case 'scrollHelp':
      if (state.modal?.kind !== 'help') return state;
      return { ...state, modal: { ...state.modal, scroll: clamp(state.modal.scroll + a.by, 0, Math.max(0, a.max)) } };
    case 'confirm':
      return { ...state, modal: { kind: 'confirm', intent: a.intent, message: a.message, dangerous: a.dangerous } };
    case 'openStart':
      return {
        ...state,
        modal: { kind: 'start', step: 'type', choices: null, problems: [], index: 0, parentId: a.parentId, text: '' },
      };
    case 'startChoices':
      if (state.modal?.kind !== 'start') return state;
      return { ...state, modal: { ...state.modal, choices: a.choices, problems: a.problems, index: 0 } };
    case 'pick': {
      const m = state.modal;
      if (m?.kind !== 'start' || !m.choices?.length) return state;
      return { ...state, modal: { ...m, index: clamp(m.index + a.by, 0, m.choices.length - 1) } };
    }
    case 'startStep':
      if (state.modal?.kind !== 'start') return state;
      return { ...state, modal: { ...state.modal, step: a.step } };
    case 'openMessage':
      return { ...state, modal: { kind: 'message', sessionId: a.sessionId, text: a.text ?? '', rename: a.rename } };
    case 'openDeny':
      return {
        ...state,
        modal: { kind: 'deny', sessionId: a.sessionId, approvalId: a.approvalId, what: a.what, text: '' },
      };
    case 'closeModal':
      return state.modal ? { ...state, modal: null } : state;
  }
}

/** Typing goes to the open dialog's text, else the filter or the search being edited. */
function edit(state: UiState, a: Extract<UiAction, { type: 'edit' }>): UiState {
  const m = state.modal;
  if (m?.kind === 'message' || m?.kind === 'deny' || (m?.kind === 'start' && m.step === 'prompt')) {
    return { ...state, modal: { ...m, text: editText(m.text, a) } };
  }
  if (state.filterEditing) return { ...state, filter: editText(state.filter, a) };
  if (state.searchEditing) return { ...state, search: editText(state.search, a) };
  return state;
}

function without(set: ReadonlySet<string>, id: string): Set<string> {
  const next = new Set(set);
  next.delete(id);
  return next;
}

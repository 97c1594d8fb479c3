/**
 * Dashboard UI state and its reducer. Every change is a `UiAction` (discriminated union); the
 * reducer is pure, so key handling is testable without a terminal. Actions that depend on what
 * is on screen (tree rows, log line count, pane height) carry it in the payload.
 */
import { edit, modalReducer } from './modal-reducer.js';
import { logReducer, treeReducer } from './pane-reducers.js';
import type { UiAction, UiState, ViewAction } from './ui-types.js';

export type * from './ui-types.js';
export { logWindowTop, selectedRowIndex } from './pane-reducers.js';

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
  allProjects: false,
  follow: true,
  logTop: 0,
  expandResults: false,
  showScreen: true,
  diff: null,
  review: null,
  modal: null,
  notice: null,
  busy: null,
};

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
    case 'showReviews':
    case 'reviewCursor':
    case 'reviewFold':
      return logReducer(state, a);
    case 'toggleExpand':
    case 'toggleScreen':
    case 'toggleArchived':
    case 'toggleGroup':
    case 'toggleProjects':
    case 'filterStart':
    case 'filterEnd':
    case 'searchStart':
    case 'searchEnd':
      return viewReducer(state, a);
    case 'openHelp':
    case 'scrollHelp':
    case 'confirm':
    case 'openStart':
    case 'startParent':
    case 'startChoices':
    case 'pick':
    case 'startStep':
    case 'openMessage':
    case 'openDeny':
    case 'openPeek':
    case 'peekLoaded':
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
    case 'toggleProjects':
      return { ...state, allProjects: !state.allProjects };
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

/** Opening, moving in and closing the dialogs, and typing into them (or the filter or search). */
import { clamp } from './pane-reducers.js';
import type { ModalAction, UiAction, UiState } from './ui-types.js';

export function modalReducer(state: UiState, a: ModalAction): UiState {
  switch (a.type) {
    case 'openHelp':
      return { ...state, modal: { kind: 'help', scroll: 0 } };
    case 'scrollHelp':
      if (state.modal?.kind !== 'help') return state;
      return { ...state, modal: { ...state.modal, scroll: clamp(state.modal.scroll + a.by, 0, Math.max(0, a.max)) } };
    case 'confirm':
      return { ...state, modal: { kind: 'confirm', intent: a.intent, message: a.message, dangerous: a.dangerous } };
    case 'openStart': {
      const parentId = a.under ? a.selectedId : null;
      return {
        ...state,
        modal: {
          kind: 'start',
          step: 'type',
          choices: null,
          problems: [],
          index: 0,
          selectedId: a.selectedId,
          parentId,
          text: '',
        },
      };
    }
    case 'startParent': {
      const m = state.modal;
      if (m?.kind !== 'start' || !m.selectedId) return state;
      return { ...state, modal: { ...m, parentId: m.parentId ? null : m.selectedId } };
    }
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
      return {
        ...state,
        modal: { kind: 'message', sessionId: a.sessionId, text: a.text ?? '', rename: a.rename, pty: a.pty },
      };
    case 'openPeek':
      return { ...state, modal: { kind: 'peek', sessionId: a.sessionId, what: a.what, lines: null } };
    case 'peekLoaded': {
      const m = state.modal;
      if (m?.kind !== 'peek' || m.sessionId !== a.sessionId) return state;
      return { ...state, modal: 'error' in a ? { ...m, lines: [], error: a.error } : { ...m, lines: a.lines } };
    }
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
export function edit(state: UiState, a: Extract<UiAction, { type: 'edit' }>): UiState {
  const m = state.modal;
  if (m?.kind === 'message' || m?.kind === 'deny' || (m?.kind === 'start' && m.step === 'prompt')) {
    return { ...state, modal: { ...m, text: editText(m.text, a) } };
  }
  if (state.filterEditing) return { ...state, filter: editText(state.filter, a) };
  if (state.searchEditing) return { ...state, search: editText(state.search, a) };
  return state;
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

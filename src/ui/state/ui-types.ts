/** The dashboard's UI state and the actions that change it (types only; the reducers are beside it). */
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
  /** Give the findings of these reviews to the session they review, as a message. */
  | { kind: 'sendReview'; originId: string; reviewIds: string[] }
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
      /** The row selected when the dialog opened: what `p` starts it under (null: none). */
      selectedId: string | null;
      /** Where it starts: under `selectedId`, or top level (null). */
      parentId: string | null;
      text: string;
    }
  /** `pty`: the text is typed into the prompt of the session's CLI in its PTY (a talk session). */
  | { kind: 'message'; sessionId: string; text: string; rename?: boolean; pty?: boolean }
  /** The last screen of a PTY session or the last message of another, read-only (null: loading). */
  | { kind: 'peek'; sessionId: string; what: 'screen' | 'message'; lines: string[] | null; error?: string }
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

/** The right pane shows the reviews of the selected session (or of the one a selected reviewer reviews) (`R`). */
export interface ReviewPaneState {
  /** The session selected when it opened: selecting another closes it, as the diff. */
  sessionId: string;
  /** The reviewer the fold and send keys act on (index among the origin's reviews, oldest first). */
  cursor: number;
  /** Reviewers shown as their heading only. */
  folded: ReadonlySet<string>;
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
  /** Every project of the home in the tree (`klaude ui --all`, P). */
  allProjects: boolean;
  /** The log pane sticks to the end; scrolling up turns it off, End turns it on. */
  follow: boolean;
  /** First shown log line when not following. */
  logTop: number;
  expandResults: boolean;
  /** For a session running in a PTY: its live screen in the right pane (else its log). */
  showScreen: boolean;
  /** The selected agent's diff in the right pane (null: its log). Selecting another session closes it. */
  diff: DiffState | null;
  /** The reviews pane in the log's place (null: the log). */
  review: ReviewPaneState | null;
  modal: Modal | null;
  notice: Notice | null;
  /** An action is in flight (start, message, …): shown in the footer. */
  busy: string | null;
}

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
    }
  /** Show the reviews (the cursor on this reviewer), or back to the log when null. */
  | { type: 'showReviews'; sessionId: string | null; cursor?: number }
  /** Move the reviews' cursor among `count` reviewers. */
  | { type: 'reviewCursor'; by: number; count: number }
  /** Fold or unfold one reviewer's findings. */
  | { type: 'reviewFold'; reviewerId: string };

/** What is shown: results in full, the screen, archived sessions; the tree filter and the log search. */
export type ViewAction =
  | { type: 'toggleExpand' | 'toggleScreen' | 'toggleArchived' | 'toggleGroup' | 'toggleProjects' }
  | { type: 'filterStart' }
  | { type: 'filterEnd'; keep: boolean }
  | { type: 'searchStart' }
  | { type: 'searchEnd'; keep: boolean };

/** Opening, moving in and closing the dialogs (help, confirm, start, message, deny). */
export type ModalAction =
  | { type: 'openHelp' }
  | { type: 'scrollHelp'; by: number; max: number }
  | { type: 'confirm'; intent: ConfirmIntent; message: string; dangerous: boolean }
  /** `under`: start under the selected row (else top level; `p` toggles). */
  | { type: 'openStart'; selectedId: string | null; under: boolean }
  | { type: 'startParent' }
  | { type: 'startChoices'; choices: AgentChoice[]; problems: string[] }
  | { type: 'pick'; by: number }
  | { type: 'startStep'; step: 'type' | 'prompt' }
  | { type: 'openMessage'; sessionId: string; rename?: boolean; text?: string; pty?: boolean }
  | { type: 'openPeek'; sessionId: string; what: 'screen' | 'message' }
  | { type: 'peekLoaded'; sessionId: string; lines: string[] }
  | { type: 'peekLoaded'; sessionId: string; error: string }
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

/** What a command handler gets: the state and view it acts on, and how it acts (ui/input/run-command.ts). */
import type { ApprovalRow } from '../../db/repos/approvals.js';
import type { ReviewView } from '../../db/repos/reviews.js';
import type { LiveProcesses } from '../../db/repos/listing.js';
import type { SessionView } from '../../feeds/session-tree.js';
import type { ProjectRef } from '../../feeds/project-tree.js';
import type { DashboardActions } from '../deps.js';
import type { UiAction, UiState } from '../state/ui-state.js';
import type { LogWindow, TreeView } from '../view.js';

export interface CommandEnv {
  ui: UiState;
  dispatch: (a: UiAction) => void;
  tree: TreeView;
  log: LogWindow;
  /** Rows in the help overlay window and its line count. */
  help: { height: number; lines: number };
  /** Every session (for archive subtrees). */
  sessions: readonly SessionView[];
  /** Live processes by session id (PTY hosts: talk, the screen preview, quitting). */
  processes: ReadonlyMap<string, LiveProcesses>;
  /** Pending permission requests by session id. */
  approvals?: ReadonlyMap<string, readonly ApprovalRow[]>;
  /** Reviews (`klaude review`) by the session they review. */
  reviews?: ReadonlyMap<string, readonly ReviewView[]>;
  actions: DashboardActions;
  /**
   * A session's status as the sessions feed has it now (an action's result comes back after the key
   * that started it, when `sessions` and `tree` may be old).
   */
  statusNow?: (id: string) => SessionView['status'] | undefined;
  /** Every project of the home is shown (feeds/projects-feed.ts), in this order. */
  projects?: readonly ProjectRef[];
}

/**
 * The shapes of the keymap (src/ui/keymap.ts): the scopes a key applies in, the help groups, what
 * a binding declares, and the context its `when` guard reads.
 */
import type { ApprovalRow } from '../db/repos/approvals.js';
import type { ReviewView } from '../db/repos/reviews.js';
import type { LiveProcesses } from '../db/repos/listing.js';
import type { SessionView } from '../feeds/session-tree.js';
import type { ConfirmIntent } from './state/ui-state.js';

export type Scope = 'main' | 'tree' | 'log' | 'help' | 'confirm' | 'picker' | 'input' | 'peek';
export type Group = 'Move' | 'Sessions' | 'View' | 'App' | 'Dialogs';

export interface KeyContext {
  selected: SessionView | null;
  /** The selected session and its descendants (for archive). */
  selectedSubtree: readonly SessionView[];
  filterActive: boolean;
  /** A log search is set (n/N move between its matches). */
  searchActive: boolean;
  /** One pane at a time (narrow terminal). */
  narrow: boolean;
  /** Agents running/waiting/pending: what quitting warns about. */
  runningAgents: number;
  /** The selected session's live processes (PTY host, foreground claude, headless runtime). */
  selectedProcesses: LiveProcesses;
  /** PTY sessions of the project running now (they outlive the dashboard). */
  ptySessions: number;
  /** The open confirm dialog's kind, if one is open. */
  confirming: ConfirmIntent['kind'] | null;
  /** The selected agent's oldest pending permission request (it is `waiting` on it). */
  selectedApproval?: ApprovalRow | null;
  /** All projects shown and the selected row is another project's: that project (its short root). */
  foreignProject?: string | null;
  /** The reviews pane (R) is shown: the reviewed session, how many reviewers, and the one chosen (null: none yet). */
  reviews?: { originId: string; count: number; current: ReviewView | null } | null;
}

export interface KeyBinding<Id extends string = string> {
  /** A command id (`CommandId`, the union of every id in the table): a renamed or mistyped id fails tsc. */
  id: Id;
  /** Key names as `keyName()` produces them: 'j', 'up', 'enter', 'ctrl+c', 'shift+tab', '?'. */
  keys: readonly string[];
  scope: Scope;
  group: Group;
  /** Short label for the footer. */
  label: string;
  /** One line for the help overlay. */
  description: string;
  /** Changes or stops something: asks first, shown in the danger colour. */
  dangerous?: boolean;
  /** Left out of the footer while `when` says it can't act (a key that only exists in one case). */
  hideWhenOff?: boolean;
  /** Footer position (lower first); absent = help overlay only. */
  footer?: number;
  /** Why it can't act now; null when it can. */
  when?: (c: KeyContext) => string | null;
}

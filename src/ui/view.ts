/**
 * Everything the frame and the key router derive from the snapshots: visible tree rows, the
 * selection, the key context, the layout, the log window. Pure (memoised by the hook).
 */
import type { ApprovalRow } from '../db/repos/approvals.js';
import type { ReviewView } from '../db/repos/reviews.js';
import type { LiveProcesses } from '../db/repos/listing.js';
import type { KeyContext, Scope } from './keymap.js';
import { computeLayout, innerWidth, type Layout, type TermSize } from './layout.js';
import type { LogLine } from './log/event-lines.js';
import {
  buildRows,
  countByStatus,
  runningAgents,
  subtreeIds,
  totalUsage,
  type SessionView,
  type StatusCounts,
  type TreeRow,
  type Usage,
} from '../feeds/session-tree.js';
import { buildAllRows, shortRoot, type ProjectRef } from '../feeds/project-tree.js';
import { logWindowTop, selectedRowIndex, type UiState } from './state/ui-state.js';

export interface TreeView {
  rows: TreeRow[];
  selectedIndex: number;
  selected: SessionView | null;
  byId: Map<string, SessionView>;
  counts: StatusCounts;
  /** The project's cost and tokens (every listed session). */
  usage: Usage;
  ctx: KeyContext;
  /** Sessions running in a live PTY host. */
  ptyIds: ReadonlySet<string>;
  /** Every project of the home is shown (grouped rows with headings). */
  allProjects: boolean;
}

const NO_PROCESSES: ReadonlyMap<string, LiveProcesses> = new Map();
const NO_APPROVALS: ReadonlyMap<string, readonly ApprovalRow[]> = new Map();
const NO_REVIEWS: ReadonlyMap<string, readonly ReviewView[]> = new Map();

/** The reviews pane's part of the key context: shown for the selected session, else null. */
function reviewContext(
  selected: SessionView | null,
  ui: UiState,
  reviews: ReadonlyMap<string, readonly ReviewView[]>,
): KeyContext['reviews'] {
  if (!selected || ui.review?.sessionId !== selected.id) return null;
  const originId = selected.reviewOf ?? selected.id;
  const list = reviews.get(originId) ?? [];
  return { originId, count: list.length, current: list[Math.min(ui.review.cursor, list.length - 1)] ?? null };
}

export function treeView(
  sessions: readonly SessionView[],
  ui: UiState,
  narrow: boolean,
  processes: ReadonlyMap<string, LiveProcesses> = NO_PROCESSES,
  approvals: ReadonlyMap<string, readonly ApprovalRow[]> = NO_APPROVALS,
  projects?: readonly ProjectRef[],
  reviews: ReadonlyMap<string, readonly ReviewView[]> = NO_REVIEWS,
): TreeView {
  const opts = {
    collapsed: ui.collapsed,
    filter: ui.filter,
    showArchived: ui.showArchived,
    groupByState: ui.groupByState,
  };
  const rows = projects
    ? buildAllRows({ sessions, projects, homeDir: process.env.HOME }, opts)
    : buildRows(sessions, opts);
  const selectedIndex = selectedRowIndex(ui, rows);
  const selected = rows[selectedIndex]?.session ?? null;
  const selProject = rows[selectedIndex]?.projectId;
  const foreign =
    projects && selProject && selProject !== projects[0]?.id ? projects.find((p) => p.id === selProject) : undefined;
  const byId = new Map(sessions.map((s) => [s.id, s]));
  const sub = selected
    ? subtreeIds(sessions, selected.id)
        .map((id) => byId.get(id)!)
        .filter(Boolean)
    : [];
  const ptyIds = new Set<string>();
  for (const [id, p] of processes) if (p.pty && byId.has(id)) ptyIds.add(id);
  return {
    ptyIds,
    rows,
    selectedIndex,
    selected,
    byId,
    counts: countByStatus(sessions),
    usage: totalUsage(sessions),
    ctx: {
      selected,
      selectedSubtree: sub,
      filterActive: ui.filter.trim() !== '',
      searchActive: ui.search.trim() !== '',
      narrow,
      runningAgents: runningAgents(sessions).length,
      selectedProcesses: (selected && processes.get(selected.id)) || {},
      ptySessions: ptyIds.size,
      confirming: ui.modal?.kind === 'confirm' ? ui.modal.intent.kind : null,
      selectedApproval: (selected && approvals.get(selected.id)?.[0]) || null,
      foreignProject: foreign ? shortRoot(foreign.root, process.env.HOME) : null,
      reviews: reviewContext(selected, ui, reviews),
    },
    allProjects: projects !== undefined,
  };
}

/** Which keymap scope gets keys now. */
export function activeScope(ui: UiState): Scope {
  const m = ui.modal;
  if (m?.kind === 'help') return 'help';
  if (m?.kind === 'confirm') return 'confirm';
  if (m?.kind === 'peek') return 'peek';
  if (m?.kind === 'start') return m.step === 'type' ? 'picker' : 'input';
  if (m?.kind === 'message' || m?.kind === 'deny') return 'input';
  if (ui.filterEditing || ui.searchEditing) return 'input';
  return ui.focus;
}

export interface LogWindow {
  lines: LogLine[];
  top: number;
  height: number;
  width: number;
}

export function logWindow(lines: LogLine[], ui: UiState, height: number, width: number): LogWindow {
  return { lines, top: logWindowTop(ui, lines.length, height), height, width };
}

export interface FrameGeometry {
  layout: Layout;
  treeInner: number;
  logInner: number;
}

export function geometry(size: TermSize): FrameGeometry {
  const layout = computeLayout(size);
  return { layout, treeInner: innerWidth(layout.treeWidth), logInner: innerWidth(layout.logWidth) };
}

/**
 * The right pane's lines when it shows neither a dialog nor a screen: the selected session's log
 * (followed as it grows) or its diff, under its pending permission request, and the window on them.
 */
import { useEffect, useMemo, useRef } from 'react';
import { shortId } from '../../core/ids.js';
import type { LogSnapshot } from '../../feeds/log-feed.js';
import type { SessionView } from '../../feeds/session-tree.js';
import type { SessionsSnapshot } from '../../feeds/sessions-feed.js';
import type { DashboardDeps } from '../deps.js';
import { approvalLines } from '../log/approval-lines.js';
import { diffLines } from '../log/diff-lines.js';
import { LogLayout, type LogLine } from '../log/event-lines.js';
import { sessionInfoLines } from '../log/session-info.js';
import { reviewPaneLines } from '../log/review-pane-lines.js';
import type { DiffState, UiState } from '../state/ui-state.js';
import { logWindow, type FrameGeometry, type LogWindow, type TreeView } from '../view.js';

export interface LogView {
  /** The log's lines, or the diff's in their place. */
  lines: LogLine[];
  win: LogWindow;
  /** The pending permission request pinned above them (none: empty). */
  ask: LogLine[];
  /** The diff shown in the log's place (null: the log). */
  diff: DiffState | null;
  /** The reviews shown in the log's place (R): how many reviewers; null: not shown. */
  reviews: { count: number } | null;
}

export function useLogView(
  deps: DashboardDeps,
  sessions: SessionsSnapshot,
  log: LogSnapshot,
  ui: UiState,
  tree: TreeView,
  { layout, logInner }: FrameGeometry,
): LogView {
  const sel = tree.selected;
  const logLines = useLogLines(deps, sel, log, ui, logInner);
  // A pending permission request is pinned above the log (at most half the pane).
  const ask = tree.ctx.selectedApproval ?? null;
  const askLines = useMemo(
    () =>
      ask && sel
        ? approvalLines(
            ask,
            sessions.approvals.get(sel.id)?.length ?? 1,
            logInner,
            Math.max(4, Math.floor(layout.paneRows / 2)),
          )
        : [],
    [ask, sel?.id, sessions.approvals, logInner, layout.paneRows],
  );
  // The diff view (c) takes the log's place: same window, same scroll keys.
  const diff = sel && ui.diff?.sessionId === sel.id ? ui.diff : null;
  const diffView = useMemo((): LogLine[] | null => {
    if (!diff) return null;
    if (diff.state === 'loading') return [{ text: 'reading the diff…', tone: 'meta' }];
    if (diff.state === 'error') return [{ text: diff.error ?? 'the diff could not be read', tone: 'error' }];
    return diffLines(diff.heading, diff.patch);
  }, [diff]);
  const reviews = useReviewLines(sessions, ui, tree, logInner);
  const lines = reviews?.lines ?? diffView ?? logLines;
  const win = logWindow(lines, ui, Math.max(1, layout.paneRows - askLines.length), logInner);
  return { lines, win, ask: askLines, diff, reviews: reviews ? { count: reviews.count } : null };
}

/** The reviews pane's lines (R) for the selected session, or null when it is not shown. */
function useReviewLines(
  sessions: SessionsSnapshot,
  ui: UiState,
  tree: TreeView,
  width: number,
): { lines: LogLine[]; count: number } | null {
  const sel = tree.selected;
  const open = sel && ui.review?.sessionId === sel.id ? ui.review : null;
  const originId = sel ? (sel.reviewOf ?? sel.id) : null;
  const list = originId ? sessions.reviews?.get(originId) : undefined;
  return useMemo(() => {
    if (!open || !originId) return null;
    const reviews = list ?? [];
    const origin = tree.byId.get(originId);
    const lines = reviewPaneLines({ origin, originId, reviews, cursor: open.cursor, folded: open.folded, width });
    return { lines, count: reviews.length };
  }, [open, originId, list, tree.byId, width]);
}

/** Follow the selected session's log, and lay it out (what it is, while it has no events yet). */
function useLogLines(
  deps: DashboardDeps,
  sel: SessionView | null,
  log: LogSnapshot,
  ui: UiState,
  logInner: number,
): LogLine[] {
  // Follow the selected session's log.
  useEffect(() => {
    deps.log.select(sel?.id ?? null, sel ? deps.logPathOf(sel) : null);
  }, [deps, sel?.id, sel ? deps.logPathOf(sel) : null]);

  const layoutCache = useRef(new LogLayout());
  return useMemo((): LogLine[] => {
    if (!sel) return [];
    const lines = layoutCache.current.lines(log.sessionId === sel.id ? log.events : [], logInner, {
      expandResults: ui.expandResults,
    });
    const head: LogLine[] =
      log.dropped > 0
        ? [{ text: `… ${log.dropped} earlier events not shown (klaude logs ${shortId(sel.id)})`, tone: 'meta' }]
        : [];
    if (lines.length > 0) return head.concat(lines);
    return sessionInfoLines(sel, log, logInner);
    // log.version covers appends to the same events array.
  }, [sel, log, log.version, logInner, ui.expandResults]);
}

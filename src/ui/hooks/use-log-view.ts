/**
 * The right pane's lines when it shows neither a dialog nor a screen: the selected session's log
 * (followed as it grows) or its diff, under its pending permission request, and the window on them.
 *
 * While the pane follows the plain log and the dashboard has a log painter, the log's rows are
 * painted over Ink's frame (render/log-painter.ts) and lines appended to the log reach the painter,
 * not React (host.tsx holds them back); the window handed to the keys then reads the log as it is
 * at the moment a key is pressed, not as it was at the last render.
 */
import { useEffect, useLayoutEffect, useMemo, useRef } from 'react';
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
import type { LogPaint } from '../deps.js';
import { logWindowTop, type DiffState, type UiState } from '../state/ui-state.js';
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
  /** The log's rows are painted over Ink's frame (the pane leaves them blank). */
  painted: boolean;
}

export function useLogView(
  deps: DashboardDeps,
  sessions: SessionsSnapshot,
  log: LogSnapshot,
  ui: UiState,
  tree: TreeView,
  { layout, logInner }: FrameGeometry,
  /** The right pane shows the log (not a dialog, the help or a PTY screen). */
  logShown: boolean,
): LogView {
  const sel = tree.selected;
  const layoutCache = useRef(new LogLayout());
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
  const painted = Boolean(
    deps.logPaint &&
    sel &&
    logShown &&
    !reviews &&
    !diff &&
    ui.follow &&
    !layout.tooSmall &&
    (!layout.narrow || ui.focus === 'log'),
  );
  // React draws the log's lines only when they are shown and not painted: else they are laid out
  // when a key asks for them (liveWindow), not on every render (a PTY screen shown while the
  // session's log grows, the sessions feed changing under a painted log).
  const drawn = logShown && !painted;
  const logLines = useLogLines(deps, sel, log, ui, logInner, layoutCache.current, drawn || !!reviews || !!diffView);
  const lines = reviews?.lines ?? diffView ?? logLines;
  const height = Math.max(1, layout.paneRows - askLines.length);
  const read = useMemo(
    () => (sel ? logReader(deps, sel, logInner, ui.expandResults, layoutCache.current) : null),
    [deps, sel, logInner, ui.expandResults],
  );
  const region = useMemo(
    () =>
      painted && sel && read
        ? {
            sessionId: sel.id,
            x: (layout.narrow ? 0 : layout.treeWidth) + 2,
            y: 2 + askLines.length,
            width: logInner,
            height,
            tail: read.tail,
            tones: deps.theme.tone,
          }
        : null,
    [painted, sel, read, layout.narrow, layout.treeWidth, askLines.length, logInner, height, deps.theme],
  );
  usePlaced(deps.logPaint, region);
  const lazy = (painted || (!drawn && !reviews && !diffView)) && read;
  const win = lazy ? liveWindow(read, ui, height, logInner) : logWindow(lines, ui, height, logInner);
  return { lines, win, ask: askLines, diff, reviews: reviews ? { count: reviews.count } : null, painted };
}

/** Place the log painter (a layout effect: in place before the compositor draws this frame). */
function usePlaced(paint: LogPaint | undefined, region: Parameters<LogPaint['place']>[0]): void {
  useLayoutEffect(() => paint?.place(region), [paint, region]);
  useLayoutEffect(() => () => paint?.place(null), [paint]);
}

interface LogReader {
  /** Every line of the log as it is now. */
  all(): LogLine[];
  /** Its last `n` lines. */
  tail(n: number): LogLine[];
}

/** The selected session's log lines, read from the feed as it is when asked. */
function logReader(
  deps: DashboardDeps,
  sel: SessionView,
  width: number,
  expandResults: boolean,
  layout: LogLayout,
): LogReader {
  const opts = { expandResults };
  let memo: { log: LogSnapshot; lines: LogLine[] } | null = null;
  const all = (): LogLine[] => {
    const log = deps.log.getSnapshot();
    if (memo?.log !== log) memo = { log, lines: layoutLines(sel, log, width, opts, layout) };
    return memo.lines;
  };
  return {
    all,
    tail(n) {
      const log = deps.log.getSnapshot();
      if (log.sessionId !== sel.id || log.events.length === 0) return all().slice(-n);
      const t = layout.tail(log.events, width, opts, n);
      return t.fromStart && log.dropped > 0 ? [droppedLine(sel, log), ...t.lines].slice(-n) : t.lines;
    },
  };
}

/** The window the keys act on, read when they act (the painter's log moves on between renders). */
function liveWindow(read: LogReader, ui: UiState, height: number, width: number): LogWindow {
  return {
    get lines() {
      return read.all();
    },
    get top() {
      return logWindowTop(ui, read.all().length, height);
    },
    height,
    width,
  };
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

const NO_LINES: LogLine[] = [];

/** Follow the selected session's log, and lay it out (what it is, while it has no events yet). */
function useLogLines(
  deps: DashboardDeps,
  sel: SessionView | null,
  log: LogSnapshot,
  ui: UiState,
  logInner: number,
  layout: LogLayout,
  /** The lines are drawn by React (else none are laid out: see useLogView). */
  drawn: boolean,
): LogLine[] {
  // Follow the selected session's log.
  useEffect(() => {
    deps.log.select(sel?.id ?? null, sel ? deps.logPathOf(sel) : null);
  }, [deps, sel?.id, sel ? deps.logPathOf(sel) : null]);

  return useMemo(
    (): LogLine[] =>
      sel && drawn ? layoutLines(sel, log, logInner, { expandResults: ui.expandResults }, layout) : NO_LINES,
    // log.version covers appends to the same events array.
    [sel, log, log.version, logInner, ui.expandResults, layout, drawn],
  );
}

const droppedLine = (sel: SessionView, log: LogSnapshot): LogLine => ({
  text: `… ${log.dropped} earlier events not shown (klaude logs ${shortId(sel.id)})`,
  tone: 'meta',
});

/** The log's lines (what the session is, while its log has no events yet). */
function layoutLines(
  sel: SessionView,
  log: LogSnapshot,
  width: number,
  opts: { expandResults: boolean },
  layout: LogLayout,
): LogLine[] {
  const lines = layout.lines(log.sessionId === sel.id ? log.events : [], width, opts);
  if (lines.length > 0) return log.dropped > 0 ? [droppedLine(sel, log), ...lines] : lines;
  return sessionInfoLines(sel, log, width);
}

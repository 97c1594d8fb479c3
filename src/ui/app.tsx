/**
 * The dashboard frame: header, tree and log panes (or a dialog / the help), footer. It reads
 * the stores, derives the view, and routes keys; all state lives in the stores, so a remount
 * comes back exactly as it was.
 */
import { Box, Text } from 'ink';
import { useEffect, useLayoutEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { shortId } from '../core/ids.js';
import { DialogPane, dialogTitle } from './components/dialog-pane.js';
import { Footer } from './components/footer.js';
import { Header } from './components/header.js';
import { HelpOverlay, helpLines } from './components/help-overlay.js';
import { LogPane } from './components/log-pane.js';
import { PreviewPane } from './components/preview-pane.js';
import { Pane } from './components/pane.js';
import { TreePane, treeWindow } from './components/tree-pane.js';
import { Clock } from '../feeds/clock.js';
import { isWorking } from '../feeds/session-tree.js';
import type { PreviewSnapshot } from '../feeds/pty-preview.js';
import type { DashboardDeps } from './deps.js';
import { useKeyRouter } from './input/use-key-router.js';
import { approvalLines } from './log/approval-lines.js';
import { diffLines } from './log/diff-lines.js';
import { LogLayout, type LogLine } from './log/event-lines.js';
import { sessionInfoLines } from './log/session-info.js';
import { MIN_COLUMNS, MIN_ROWS } from './layout.js';
import { truncate } from './text.js';
import { activeScope, geometry, logWindow, treeView } from './view.js';

const noSubscribe = (): (() => void) => () => undefined;
const OFF_PREVIEW: PreviewSnapshot = { sessionId: null, state: 'off', screen: null, version: 0, error: null };
const noPreview = (): PreviewSnapshot => OFF_PREVIEW;

export interface AppProps {
  deps: DashboardDeps;
  /** False while the terminal is handed over (no input is read). */
  active?: boolean;
}

export function App({ deps, active = true }: AppProps) {
  const { theme } = deps;
  const sessions = useSyncExternalStore(deps.sessions.subscribe, deps.sessions.getSnapshot);
  const log = useSyncExternalStore(deps.log.subscribe, deps.log.getSnapshot);
  const ui = useSyncExternalStore(deps.ui.subscribe, deps.ui.getSnapshot);
  const preview = useSyncExternalStore(deps.preview?.subscribe ?? noSubscribe, deps.preview?.getSnapshot ?? noPreview);
  const size = useSyncExternalStore(deps.size.subscribe, deps.size.getSnapshot);
  const ownClock = useRef<Clock | null>(null);
  const clock = deps.clock ?? (ownClock.current ??= new Clock());
  const tick = useSyncExternalStore(clock.subscribe, clock.getSnapshot);
  // Ages are as of the last tree or UI change or clock tick: a streaming log does not redraw the tree.
  const now = useMemo(() => (deps.now ? deps.now() : Date.now()), [deps, sessions, ui, tick]);

  const { layout, treeInner, logInner } = useMemo(() => geometry(size), [size]);
  const tree = useMemo(
    () => treeView(sessions.sessions, ui, layout.narrow, sessions.processes, sessions.approvals),
    [sessions, ui, layout.narrow],
  );
  // The clock ticks only while a row on screen is running (else no timer: an idle dashboard sleeps).
  const treeShown = active && ui.modal?.kind !== 'help' && (!layout.narrow || ui.focus === 'tree');
  const win = treeWindow(tree.rows.length, tree.selectedIndex, layout.paneRows);
  const clockOn = treeShown && tree.rows.slice(win.top, win.end).some((r) => isWorking(r.session));
  useEffect(() => {
    clock.setRunning(clockOn);
  }, [clock, clockOn]);
  useEffect(() => () => clock.setRunning(false), [clock]);
  const sel = tree.selected;
  // The PTY row, not the server's pid: one server hosts every session, restarted ones included.
  const selHost = sel ? (sessions.processes.get(sel.id)?.ptyRow ?? null) : null;

  // Watch the selected session's PTY screen while it is shown (moving away closes the viewer).
  const watchScreen = sel !== null && selHost !== null && ui.showScreen;
  // (and nothing is watched while the dashboard is unmounted: handed over, or talking).
  useEffect(() => {
    deps.preview?.select(watchScreen ? sel!.id : null, watchScreen ? selHost : null);
    return () => deps.preview?.select(null, null);
  }, [deps, watchScreen, sel?.id, selHost]);
  const previewOfSel = watchScreen && preview.sessionId === sel!.id ? preview : null;
  const screen = previewOfSel && previewOfSel.screen && previewOfSel.state !== 'error' ? previewOfSel.screen : null;
  const paint = deps.previewPaint;
  // With a painter the pane shows as soon as a PTY session is selected (the switch is one frame:
  // its rows are painted into it when they come); without one, once its screen is read.
  // The diff view (c) wins over the screen, as over the log.
  const diffShown = Boolean(sel && ui.diff?.sessionId === sel.id);
  const screenPane =
    !diffShown && (screen !== null || (paint !== undefined && watchScreen && previewOfSel?.state !== 'error'));

  // Where the painter draws the screen's rows (when one does: else Ink draws them, PreviewPane).
  const modal = ui.modal;
  const dialog = modal && modal.kind !== 'help' ? modal : null;
  const painted = Boolean(
    paint &&
    screenPane &&
    !dialog &&
    modal?.kind !== 'help' &&
    !layout.tooSmall &&
    (!layout.narrow || ui.focus === 'log'),
  );
  const colour = theme.name === 'color';
  const paintFor = painted ? sel!.id : null;
  // A layout effect: in place before anything paints after this frame (see PreviewPainter.inkWrote).
  useLayoutEffect(() => {
    paint?.place(
      paintFor
        ? {
            sessionId: paintFor,
            x: (layout.narrow ? 0 : layout.treeWidth) + 2,
            y: 2,
            width: logInner,
            height: layout.paneRows,
            colour,
          }
        : null,
    );
  }, [paint, paintFor, layout.narrow, layout.treeWidth, logInner, layout.paneRows, colour]);
  useLayoutEffect(() => () => paint?.place(null), [paint]);

  // Follow the selected session's log.
  useEffect(() => {
    deps.log.select(sel?.id ?? null, sel ? deps.logPathOf(sel) : null);
  }, [deps, sel?.id, sel ? deps.logPathOf(sel) : null]);

  const layoutCache = useRef(new LogLayout());
  const logLines = useMemo((): LogLine[] => {
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
  const paneLines = diffView ?? logLines;
  const logWin = logWindow(paneLines, ui, Math.max(1, layout.paneRows - askLines.length), logInner);

  // Only while the help is open (it is the one place that lists every binding).
  const helpOpen = ui.modal?.kind === 'help';
  const help = useMemo(
    () => (helpOpen ? helpLines(tree.ctx, layout.columns - 4, theme) : []),
    [helpOpen, tree.ctx, layout.columns, theme],
  );
  const scope = activeScope(ui);
  useKeyRouter(
    {
      ui,
      dispatch: deps.ui.dispatch,
      tree,
      log: logWin,
      help: { height: layout.paneRows, lines: help.length },
      sessions: sessions.sessions,
      processes: sessions.processes,
      approvals: sessions.approvals,
      actions: deps.actions,
    },
    deps.ui.getSnapshot,
    active,
  );

  if (layout.tooSmall) {
    return (
      <Box width={layout.columns} height={layout.frameRows}>
        <Text {...theme.ui.warn}>
          {truncate(
            `terminal too small (${size.columns}×${size.rows}; need ${MIN_COLUMNS}×${MIN_ROWS}) · q quits`,
            layout.columns,
          )}
        </Text>
      </Box>
    );
  }

  const filterNote = ui.filter && !ui.filterEditing ? ` · /${ui.filter}` : '';
  const treeTitle = `sessions ${tree.rows.length}${ui.showArchived ? ' (with archived)' : ''}${filterNote}`;
  const emptyText = ui.filter
    ? `nothing matches "${ui.filter}" (/ then Esc clears)`
    : 'no sessions yet: n opens claude, s starts an agent';
  const logTitle = sel ? `log · ${sel.type === 'tui' ? 'claude' : sel.type} ${shortId(sel.id)}` : 'log';
  const below = paneLines.length - (logWin.top + logWin.height);
  const logStatus = diff
    ? `${diff.state === 'ready' ? `${diff.files} file${diff.files === 1 ? '' : 's'} · ` : ''}${below > 0 ? `${below} more ↓ · ` : ''}c: log`
    : ui.follow
      ? 'following'
      : `paused${below > 0 ? ` · ${below} more ↓` : ''}`;
  const paneTitle = diff && sel ? `diff · ${sel.type} ${shortId(sel.id)}` : logTitle;

  const treePane = (focused: boolean) => (
    <Pane title={treeTitle} width={layout.treeWidth} rows={layout.paneRows} focused={focused} theme={theme}>
      <TreePane
        rows={tree.rows}
        selected={tree.selectedIndex}
        focused={focused}
        width={treeInner}
        height={layout.paneRows}
        theme={theme}
        now={now}
        emptyText={emptyText}
        ptyIds={tree.ptyIds}
      />
    </Pane>
  );
  const rightPane = (focused: boolean) =>
    dialog ? (
      <Pane title={dialogTitle(dialog)} width={layout.logWidth} rows={layout.paneRows} focused theme={theme}>
        <DialogPane modal={dialog} sessionsById={tree.byId} width={logInner} height={layout.paneRows} theme={theme} />
      </Pane>
    ) : screenPane ? (
      <Pane
        title={`screen · ${sel!.type === 'tui' ? 'claude' : sel!.type} ${shortId(sel!.id)} · pty`}
        status={
          screen
            ? `${preview.state === 'ended' ? 'ended' : 'live'} · ${screen.cols}×${screen.rows} · t talks, v log`
            : 'connecting · t talks, v log'
        }
        width={layout.logWidth}
        rows={layout.paneRows}
        focused={focused}
        theme={theme}
      >
        {paint || !screen ? (
          <Box height={layout.paneRows} />
        ) : (
          <PreviewPane screen={screen} width={logInner} height={layout.paneRows} theme={theme} />
        )}
      </Pane>
    ) : (
      <Pane
        title={paneTitle}
        status={logStatus}
        width={layout.logWidth}
        rows={layout.paneRows}
        focused={focused}
        theme={theme}
      >
        {askLines.length > 0 ? <LogPane lines={askLines} top={0} height={askLines.length} theme={theme} /> : null}
        <LogPane lines={paneLines} top={logWin.top} height={logWin.height} theme={theme} />
      </Pane>
    );

  let body;
  if (modal?.kind === 'help') {
    body = (
      <Pane title="keys" status="Esc closes" width={layout.columns} rows={layout.paneRows} focused theme={theme}>
        <HelpOverlay lines={help} scroll={modal.scroll} height={layout.paneRows} />
      </Pane>
    );
  } else if (layout.narrow) {
    body = dialog || ui.focus === 'log' ? rightPane(true) : treePane(true);
  } else {
    body = (
      <Box flexDirection="row">
        {treePane(ui.focus === 'tree' && !dialog)}
        {rightPane(ui.focus === 'log' || dialog !== null)}
      </Box>
    );
  }

  return (
    <Box flexDirection="column" width={layout.columns} height={layout.frameRows}>
      <Header
        project={deps.info.project}
        instanceId={deps.info.instanceId}
        counts={tree.counts}
        usage={tree.usage}
        width={layout.columns}
        theme={theme}
      />
      <Box height={layout.bodyRows} flexDirection="column">
        {body}
      </Box>
      <Footer
        scope={scope}
        ctx={tree.ctx}
        notice={
          ui.notice ??
          (sessions.error
            ? { text: sessions.error, tone: 'error' }
            : log.error
              ? { text: log.error, tone: 'error' }
              : null)
        }
        busy={ui.busy}
        filterEditing={ui.filterEditing || ui.searchEditing}
        filter={ui.searchEditing ? ui.search : ui.filter}
        width={layout.columns}
        theme={theme}
      />
    </Box>
  );
}

/**
 * The dashboard frame: header, tree and log panes (or a dialog / the help), footer. It reads
 * the stores, derives the view, and routes keys; all state lives in the stores, so a remount
 * comes back exactly as it was.
 */
import { Box, Text } from 'ink';
import { useMemo, useSyncExternalStore } from 'react';
import { Footer } from './components/footer.js';
import { Header } from './components/header.js';
import { HelpOverlay, helpLines } from './components/help-overlay.js';
import { Pane } from './components/pane.js';
import { RightPane } from './components/right-pane.js';
import type { Segment } from './components/segments.js';
import { SessionsPane, type SessionsPaneProps } from './components/sessions-pane.js';
import type { LogSnapshot } from '../feeds/log-feed.js';
import type { SessionsSnapshot } from '../feeds/sessions-feed.js';
import type { DashboardDeps } from './deps.js';
import { shownClocks, useNow, type ShownClocks } from './hooks/use-clock.js';
import { useLogView, type LogView } from './hooks/use-log-view.js';
import { useScreenPreview, type ScreenView } from './hooks/use-screen-preview.js';
import { useKeyRouter } from './input/use-key-router.js';
import { MIN_COLUMNS, MIN_ROWS, type Layout, type TermSize } from './layout.js';
import type { UiState } from './state/ui-state.js';
import { noticeHolds, type Notice } from './state/notice.js';
import { truncate } from './text.js';
import { countRender } from './render/ui-stats.js';
import type { Theme } from './theme.js';
import { activeScope, geometry, treeView, type FrameGeometry, type TreeView } from './view.js';

export interface AppProps {
  deps: DashboardDeps;
  /** False while the terminal is handed over (no input is read). */
  active?: boolean;
}

export function App({ deps, active = true }: AppProps) {
  countRender('app');
  const { theme } = deps;
  const sessions = useSyncExternalStore(deps.sessions.subscribe, deps.sessions.getSnapshot);
  const log = useSyncExternalStore(deps.log.subscribe, deps.log.getSnapshot);
  const ui = useSyncExternalStore(deps.ui.subscribe, deps.ui.getSnapshot);
  const size = useSyncExternalStore(deps.size.subscribe, deps.size.getSnapshot);
  const geo = useMemo(() => geometry(size), [size]);
  const { layout } = geo;
  const tree = useMemo(
    () =>
      treeView(
        sessions.sessions,
        ui,
        layout.narrow,
        sessions.processes,
        sessions.approvals,
        sessions.projects,
        sessions.reviews,
      ),
    [sessions, ui, layout.narrow],
  );
  // The clock is read by the tree alone: its 1 Hz tick renders the tree, not the whole app.
  const clock: TreeClock = { deps, sessions, shown: shownClocks(active, ui, geo, tree) };
  const screen = useScreenPreview(deps, sessions, tree.selected, ui, geo);
  const logView = useLogView(deps, sessions, log, ui, tree, geo, !ui.modal && !screen.shown);

  // Only while the help is open (it is the one place that lists every binding).
  const helpOpen = ui.modal?.kind === 'help';
  const help = useMemo(
    () => (helpOpen ? helpLines(tree.ctx, layout.columns - 4, theme) : []),
    [helpOpen, tree.ctx, layout.columns, theme],
  );
  useKeyRouter(
    {
      ui,
      dispatch: deps.ui.dispatch,
      tree,
      log: logView.win,
      help: { height: layout.paneRows, lines: help.length },
      sessions: sessions.sessions,
      processes: sessions.processes,
      approvals: sessions.approvals,
      ...(sessions.reviews ? { reviews: sessions.reviews } : {}),
      actions: deps.actions,
      statusNow: (id) => deps.sessions.getSnapshot().sessions.find((s) => s.id === id)?.status,
      ...(sessions.projects ? { projects: sessions.projects } : {}),
    },
    deps.ui.getSnapshot,
    active,
  );

  if (layout.tooSmall) return <TooSmall size={size} layout={layout} theme={theme} />;
  const frame = { ui, tree, geo, clock, screen, log: logView, help, painter: deps.previewPaint !== undefined, theme };
  return (
    <Box flexDirection="column" width={layout.columns} height={layout.frameRows}>
      <Header
        project={tree.allProjects ? `all projects (${sessions.projects?.length ?? 1})` : deps.info.project}
        instanceId={deps.info.instanceId}
        counts={tree.counts}
        usage={tree.usage}
        width={layout.columns}
        theme={theme}
      />
      <Box height={layout.bodyRows} flexDirection="column">
        <Body {...frame} />
      </Box>
      <Footer
        scope={activeScope(ui)}
        ctx={tree.ctx}
        notice={footerNotice(ui, sessions, log)}
        busy={ui.busy}
        filterEditing={ui.filterEditing || ui.searchEditing}
        filter={ui.searchEditing ? ui.search : ui.filter}
        width={layout.columns}
        theme={theme}
      />
    </Box>
  );
}

function TooSmall({ size, layout, theme }: { size: TermSize; layout: Layout; theme: Theme }) {
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

/** The footer's notice: the last one set, else a feed's error. */
function footerNotice(ui: UiState, sessions: SessionsSnapshot, log: LogSnapshot): Notice | null {
  const statusOf = (id: string): string | undefined => sessions.sessions.find((s) => s.id === id)?.status;
  const own = ui.notice && noticeHolds(ui.notice, statusOf) ? ui.notice : null;
  return (
    own ??
    (sessions.error ? { text: sessions.error, tone: 'error' } : log.error ? { text: log.error, tone: 'error' } : null)
  );
}

/** What the tree's clock reads (hooks/use-clock.ts). */
interface TreeClock {
  deps: DashboardDeps;
  sessions: SessionsSnapshot;
  shown: ShownClocks;
}

/** The sessions pane with the time its ages are as of: a tick renders this, not the app. */
function ClockedSessionsPane({ clock, ...pane }: Omit<SessionsPaneProps, 'now'> & { clock: TreeClock }) {
  const now = useNow(clock.deps, clock.sessions, pane.ui, clock.shown);
  const paint = clock.deps.clockPaint;
  return <SessionsPane {...pane} now={now} {...(paint ? { clocks: paint } : {})} />;
}

interface BodyProps {
  ui: UiState;
  tree: TreeView;
  geo: FrameGeometry;
  clock: TreeClock;
  screen: ScreenView;
  log: LogView;
  help: Segment[][];
  painter: boolean;
  theme: Theme;
}

/** Between header and footer: the help; or one pane (narrow terminal); or the tree beside the right pane. */
function Body({ ui, tree, geo, clock, screen, log, help, painter, theme }: BodyProps) {
  const { layout, treeInner, logInner } = geo;
  const modal = ui.modal;
  if (modal?.kind === 'help') {
    return (
      <Pane title="keys" status="Esc closes" width={layout.columns} rows={layout.paneRows} focused theme={theme}>
        <HelpOverlay lines={help} scroll={modal.scroll} height={layout.paneRows} />
      </Pane>
    );
  }
  // Any other modal is a dialog: it takes the right pane's place.
  const dialog = modal;
  const treePane = (focused: boolean) => (
    <ClockedSessionsPane
      clock={clock}
      tree={tree}
      ui={ui}
      layout={layout}
      width={treeInner}
      focused={focused}
      theme={theme}
    />
  );
  const rightPane = (focused: boolean) => (
    <RightPane
      dialog={dialog}
      sel={tree.selected}
      sessionsById={tree.byId}
      screen={screen}
      painter={painter}
      log={log}
      follow={ui.follow}
      layout={layout}
      width={logInner}
      focused={focused}
      theme={theme}
    />
  );
  if (layout.narrow) return dialog || ui.focus === 'log' ? rightPane(true) : treePane(true);
  return (
    <Box flexDirection="row">
      {treePane(ui.focus === 'tree' && !dialog)}
      {rightPane(ui.focus === 'log' || dialog !== null)}
    </Box>
  );
}

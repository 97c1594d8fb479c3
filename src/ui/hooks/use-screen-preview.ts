/**
 * The selected PTY session's live screen in the right pane: watched while it is shown, and, with
 * a painter, the region the painter draws its rows into.
 */
import { useEffect, useLayoutEffect, useSyncExternalStore } from 'react';
import type { PreviewSnapshot, PreviewState } from '../../feeds/pty-preview.js';
import type { SessionView } from '../../feeds/session-tree.js';
import type { SessionsSnapshot } from '../../feeds/sessions-feed.js';
import type { PtySnapshot } from '../../pty/viewer.js';
import type { DashboardDeps, PreviewPaint } from '../deps.js';
import type { Layout } from '../layout.js';
import type { UiState } from '../state/ui-state.js';
import type { FrameGeometry } from '../view.js';

const noSubscribe = (): (() => void) => () => undefined;
const OFF_PREVIEW: PreviewSnapshot = { sessionId: null, state: 'off', screen: null, version: 0, error: null };
const noPreview = (): PreviewSnapshot => OFF_PREVIEW;

export interface ScreenView {
  /** The right pane shows the screen (not the log or the diff). */
  shown: boolean;
  /** The screen as last read; null while connecting (or on an error). */
  screen: PtySnapshot | null;
  state: PreviewState;
}

export function useScreenPreview(
  deps: DashboardDeps,
  sessions: SessionsSnapshot,
  sel: SessionView | null,
  ui: UiState,
  { layout, logInner }: FrameGeometry,
): ScreenView {
  const preview = useSyncExternalStore(deps.preview?.subscribe ?? noSubscribe, deps.preview?.getSnapshot ?? noPreview);
  // The PTY row, not the server's pid: one server hosts every session, restarted ones included.
  const selHost = sel ? (sessions.processes.get(sel.id)?.ptyRow ?? null) : null;

  // Watch the selected session's PTY screen while it is shown (moving away closes the viewer).
  const watchScreen = sel !== null && selHost !== null && ui.showScreen;
  // (and nothing is watched while the dashboard is unmounted: handed over, or talking).
  useEffect(() => {
    deps.preview?.select(watchScreen ? sel!.id : null, watchScreen ? selHost : null);
    return () => deps.preview?.select(null, null);
  }, [deps, watchScreen, sel?.id, selHost]);
  // The pane's inside is the size the session's PTY is asked to be (a CLI drawn for it is not cut).
  useEffect(() => {
    deps.preview?.fit?.({ cols: logInner, rows: layout.paneRows });
  }, [deps, logInner, layout.paneRows]);
  const previewOfSel = watchScreen && preview.sessionId === sel!.id ? preview : null;
  const screen = previewOfSel && previewOfSel.screen && previewOfSel.state !== 'error' ? previewOfSel.screen : null;
  const paint = deps.previewPaint;
  // With a painter the pane shows as soon as a PTY session is selected (the switch is one frame:
  // its rows are painted into it when they come); without one, once its screen is read.
  // The diff view (c) wins over the screen, as over the log.
  const diffShown = Boolean(sel && ui.diff?.sessionId === sel.id);
  const shown =
    !diffShown && (screen !== null || (paint !== undefined && watchScreen && previewOfSel?.state !== 'error'));

  // Where the painter draws the screen's rows (when one does: else Ink draws them, PreviewPane).
  const modal = ui.modal;
  const dialog = modal && modal.kind !== 'help' ? modal : null;
  const painted = Boolean(
    paint && shown && !dialog && modal?.kind !== 'help' && !layout.tooSmall && (!layout.narrow || ui.focus === 'log'),
  );
  usePainterRegion(paint, painted ? sel!.id : null, layout, logInner, deps.theme.name === 'color');
  return { shown, screen, state: preview.state };
}

function usePainterRegion(
  paint: PreviewPaint | undefined,
  paintFor: string | null,
  layout: Layout,
  logInner: number,
  colour: boolean,
): void {
  // A layout effect: in place before anything paints after this frame (the compositor draws a frame after its layout effects).
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
}

/** The time the tree's ages are as of, and the ≤ 1 Hz clock that moves it while a row on screen runs. */
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { Clock } from '../../feeds/clock.js';
import { isWorking } from '../../feeds/session-tree.js';
import type { SessionsSnapshot } from '../../feeds/sessions-feed.js';
import { treeWindow } from '../components/tree-pane.js';
import type { DashboardDeps } from '../deps.js';
import type { Layout } from '../layout.js';
import type { UiState } from '../state/ui-state.js';
import type { TreeView } from '../view.js';

export function useNow(deps: DashboardDeps, sessions: SessionsSnapshot, ui: UiState, clockOn: boolean): number {
  const ownClock = useRef<Clock | null>(null);
  const clock = deps.clock ?? (ownClock.current ??= new Clock());
  const tick = useSyncExternalStore(clock.subscribe, clock.getSnapshot);
  // Ages are as of the last tree or UI change or clock tick: a streaming log does not redraw the tree.
  const now = useMemo(() => (deps.now ? deps.now() : Date.now()), [deps, sessions, ui, tick]);
  useEffect(() => {
    clock.setRunning(clockOn);
  }, [clock, clockOn]);
  useEffect(() => () => clock.setRunning(false), [clock]);
  return now;
}

/** The clock ticks only while a row on screen is running (else no timer: an idle dashboard sleeps). */
export function clockNeeded(active: boolean, ui: UiState, layout: Layout, tree: TreeView): boolean {
  const treeShown = active && ui.modal?.kind !== 'help' && (!layout.narrow || ui.focus === 'tree');
  const win = treeWindow(tree.rows.length, tree.selectedIndex, layout.paneRows);
  return treeShown && tree.rows.slice(win.top, win.end).some((r) => isWorking(r.session));
}

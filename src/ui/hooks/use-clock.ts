/**
 * The time the tree's ages are as of, and the clock that moves it: ≤ 1 Hz while a row on screen
 * runs, else one wake when the next age shown changes, else no timer (an idle dashboard sleeps).
 * A tick that moves only the digits of running rows' clocks is drawn by the clock painter, not
 * by a render, when the dashboard has one (render/clock-painter.ts).
 */
import { useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import { Clock } from '../../feeds/clock.js';
import { isWorking } from '../../feeds/session-tree.js';
import type { SessionsSnapshot } from '../../feeds/sessions-feed.js';
import type { Source } from '../../feeds/store.js';
import { msUntilSpanChanges } from '../../lib/format.js';
import { AGE_COLUMN, LABEL_ROOM, metaColumnCount, treeWindow } from '../components/tree-pane.js';
import type { DashboardDeps } from '../deps.js';
import type { UiState } from '../state/ui-state.js';
import type { FrameGeometry, TreeView } from '../view.js';

/** What on screen moves with time: running rows' elapsed times, and the ages of the rows shown. */
export interface ShownClocks {
  running: boolean;
  /** Creation times of the rows whose age is on screen. */
  ages: readonly number[];
}

const NOTHING: ShownClocks = { running: false, ages: [] };

export function useNow(deps: DashboardDeps, sessions: SessionsSnapshot, ui: UiState, shown: ShownClocks): number {
  const ownClock = useRef<Clock | null>(null);
  const clock = deps.clock ?? (ownClock.current ??= new Clock());
  // With a clock painter the ticks that only move clock digits are drawn without a render
  // (render/clock-painter.ts): the tree reads the ticks that need one.
  const ticks: Source<number> = deps.clockPaint ?? clock;
  const tick = useSyncExternalStore(ticks.subscribe, ticks.getSnapshot);
  // Ages are as of the last tree or UI change or clock tick: a streaming log does not redraw the tree.
  const now = useMemo(() => (deps.now ? deps.now() : Date.now()), [deps, sessions, ui, tick]);
  useEffect(() => {
    clock.setRunning(shown.running);
  }, [clock, shown.running]);
  // (the 1 Hz tick redraws the ages too)
  const wake = shown.running ? null : nextAgeChange(now, shown.ages);
  const due = wake === null ? null : now + wake;
  useEffect(() => {
    clock.wakeIn(wake);
    // Keyed by the due time alone: a render that moves `now` but not the due time keeps the wake.
  }, [clock, due]);
  useEffect(() => () => clock.stop(), [clock]);
  return now;
}

/** Milliseconds until the first of these ages reads differently (null: none shown). */
export function nextAgeChange(now: number, createdAt: readonly number[]): number | null {
  let next: number | null = null;
  for (const c of createdAt) {
    const ms = msUntilSpanChanges(now - c);
    if (next === null || ms < next) next = ms;
  }
  return next;
}

/** The rows on screen, and which clocks they show (none while the tree is hidden). */
export function shownClocks(active: boolean, ui: UiState, geo: FrameGeometry, tree: TreeView): ShownClocks {
  const { layout } = geo;
  const treeShown =
    active && !layout.tooSmall && ui.modal?.kind !== 'help' && (!layout.narrow || (ui.focus === 'tree' && !ui.modal));
  if (!treeShown) return NOTHING;
  const win = treeWindow(tree.rows.length, tree.selectedIndex, layout.paneRows);
  const rows = tree.rows.slice(win.top, win.end);
  const ageShown = metaColumnCount(geo.treeInner, layout.narrow ? LABEL_ROOM.alone : LABEL_ROOM.beside) > AGE_COLUMN;
  return {
    running: rows.some((r) => isWorking(r.session)),
    ages: ageShown ? rows.map((r) => r.session.createdAt) : [],
  };
}

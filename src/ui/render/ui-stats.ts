/**
 * What the dashboard drew, counted for the benches (`KLAUDE_UI_STATS=<file>`: written when the
 * dashboard closes): Ink frames, the compositor's writes and bytes, rows the terminal scrolled, and
 * how many times each pane's component rendered. Counting is a few increments; nothing is kept.
 */
export interface UiStats {
  inkFrames: number;
  /** Compositor flushes (a write or nothing to write), and the preview frames that asked for one. */
  flushes: number;
  previewFrames: number;
  writes: number;
  bytes: number;
  scrolls: number;
  /** Clock ticks drawn by the compositor alone (clock-painter.ts), without an Ink frame. */
  clockPaints: number;
  /** Component renders, by pane. */
  renders: Record<string, number>;
}

export const uiStats: UiStats = {
  inkFrames: 0,
  flushes: 0,
  previewFrames: 0,
  writes: 0,
  bytes: 0,
  scrolls: 0,
  clockPaints: 0,
  renders: {},
};

/** One render of this pane's component. */
export function countRender(pane: string): void {
  uiStats.renders[pane] = (uiStats.renders[pane] ?? 0) + 1;
}

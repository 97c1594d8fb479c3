/**
 * Where things go for a terminal size. The frame is one row shorter than the terminal: a frame
 * that fills the last row makes Ink clear the whole screen on every update (flicker).
 */
export interface TermSize {
  columns: number;
  rows: number;
}

export interface Layout {
  columns: number;
  /** Rows the frame takes (terminal rows − 1). */
  frameRows: number;
  /** Rows between header and footer. */
  bodyRows: number;
  /** Rows inside a pane (between its top and bottom border). */
  paneRows: number;
  /** One pane at a time (Tab switches). */
  narrow: boolean;
  tooSmall: boolean;
  treeWidth: number;
  logWidth: number;
}

export const MIN_COLUMNS = 40;
export const MIN_ROWS = 8;
export const NARROW_BELOW = 90;

export function computeLayout(size: TermSize): Layout {
  const columns = Math.max(1, size.columns);
  const frameRows = Math.max(1, size.rows - 1);
  const tooSmall = columns < MIN_COLUMNS || size.rows < MIN_ROWS;
  const bodyRows = Math.max(0, frameRows - 2);
  const paneRows = Math.max(0, bodyRows - 2);
  const narrow = columns < NARROW_BELOW;
  // Beside the log: 42% of the width, and past 120 columns a quarter of each further column too, so
  // a wide terminal shows titles (at 160 the tree had 67 cells, 34 of them the right-hand figures,
  // and cut every title to a dozen cells: less than the tree alone shows at 80).
  const share = Math.round(columns * 0.42 + Math.max(0, columns - 120) / 4);
  const treeWidth = narrow ? columns : Math.min(96, Math.max(40, share));
  const logWidth = narrow ? columns : columns - treeWidth;
  return { columns, frameRows, bodyRows, paneRows, narrow, tooSmall, treeWidth, logWidth };
}

/** Inner text width of a pane of `outer` columns (borders and one space of padding each side). */
export function innerWidth(outer: number): number {
  return Math.max(1, outer - 4);
}

/**
 * The log pane's inside while it follows the end of the log, drawn over Ink's frame as the
 * compositor's overlay (like the preview, preview-painter.ts): a line appended to the followed log
 * is drawn without a React render or an Ink frame, which would rebuild and lay out the whole
 * dashboard to change the pane's last rows. The dashboard's log source holds such changes back
 * from React while the painter is placed (host.tsx), and hands them here.
 *
 * Each log line becomes cells once (a line is the same object for as long as it is shown:
 * log/event-lines.ts LogLayout), styled by its tone as Ink's <Text> would style it; a new line at
 * the bottom moves the others up, which the compositor has the terminal do.
 */
import chalk from 'chalk';
import type { RowCells } from '../../ptyd/cells.js';
import type { LogLine } from '../log/event-lines.js';
import { truncate } from '../text.js';
import type { Style, Tone } from '../theme.js';
import type { Compositor, Overlay } from './compositor.js';
import { parseLineCells } from './line-cells.js';

export interface LogPaintRegion {
  /** Whose log it is. */
  sessionId: string;
  /** Top-left cell of the rows it draws, 0-based. */
  x: number;
  y: number;
  width: number;
  height: number;
  /** The last `n` lines of the log as it is now. */
  tail(n: number): readonly LogLine[];
  /** Each tone's style (the theme's). */
  tones: Record<Tone, Style>;
}

/** The text with the style applied as Ink's <Text> applies it (ink/build/components/Text.js). */
function styled(text: string, s: Style): string {
  let t = text;
  if (s.dimColor) t = chalk.dim(t);
  if (s.color) t = colour(t, s.color, false);
  if (s.backgroundColor) t = colour(t, s.backgroundColor, true);
  if (s.bold) t = chalk.bold(t);
  if (s.italic) t = chalk.italic(t);
  if (s.inverse) t = chalk.inverse(t);
  return t;
}

/** Ink's colorize: a chalk colour name, #hex, ansi256(n) or rgb(r,g,b). */
function colour(t: string, c: string, bg: boolean): string {
  const named = bg ? `bg${c[0]!.toUpperCase()}${c.slice(1)}` : c;
  const fn = (chalk as unknown as Record<string, unknown>)[named];
  if (c in chalk && typeof fn === 'function') return (fn as (s: string) => string)(t);
  if (c.startsWith('#')) return bg ? chalk.bgHex(c)(t) : chalk.hex(c)(t);
  const n = /^ansi256\(\s?(\d+)\s?\)$/.exec(c);
  if (n) return bg ? chalk.bgAnsi256(Number(n[1]))(t) : chalk.ansi256(Number(n[1]))(t);
  const rgb = /^rgb\(\s?(\d+),\s?(\d+),\s?(\d+)\s?\)$/.exec(c);
  if (rgb) {
    const [r, g, b] = [Number(rgb[1]), Number(rgb[2]), Number(rgb[3])];
    return bg ? chalk.bgRgb(r, g, b)(t) : chalk.rgb(r, g, b)(t);
  }
  return t;
}

export class LogPainter implements Overlay {
  private placedAt: LogPaintRegion | null = null;
  /** The cells of the lines shown last (only those: a long log's lines are not all kept as cells). */
  private cells = new Map<LogLine, { width: number; style: Style; row: RowCells }>();

  constructor(private readonly screen: Pick<Compositor, 'changed'>) {}

  get region(): LogPaintRegion | null {
    return this.placedAt;
  }

  /** Where the pane's inside is and whose log it shows (null: Ink draws the log). */
  place(region: LogPaintRegion | null): void {
    this.placedAt = region;
    this.screen.changed();
  }

  /** The log changed: its rows are read on the compositor's next flush. */
  changed(): void {
    if (this.placedAt) this.screen.changed();
  }

  rows(): readonly RowCells[] {
    const r = this.placedAt;
    if (!r) {
      this.cells.clear();
      return [];
    }
    const kept = new Map<LogLine, { width: number; style: Style; row: RowCells }>();
    const rows = r.tail(r.height).map((l) => {
      const style = r.tones[l.tone];
      let hit = this.cells.get(l);
      if (!hit || hit.width !== r.width || hit.style !== style) {
        const row = parseLineCells(styled(truncate(l.text === '' ? ' ' : l.text, r.width), style), r.width);
        hit = { width: r.width, style, row };
      }
      kept.set(l, hit);
      return hit.row;
    });
    this.cells = kept;
    return rows;
  }
}

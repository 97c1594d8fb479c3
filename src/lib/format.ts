/** Small, stable text formatting shared by listing commands (read by people and by Claude). */
import { safeText } from './escapes.js';

/** Compact age of a timestamp: "3s", "4m", "2h", "5d" (whole units, rounded down). */
export function age(fromMs: number, now: number = Date.now()): string {
  return shortSpan(now - fromMs);
}

/** A span as "3s", "4m", "2h" (up to 47h), "5d"; whole units, rounded down. */
export function shortSpan(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h`;
  return `${Math.floor(h / 24)}d`;
}

const SPAN_STEPS_MS = [1000, 60_000, 3_600_000, 86_400_000] as const;

/**
 * How long until `shortSpan(ms)` reads differently as `ms` grows: to the next whole second while
 * it shows seconds, the next whole minute while minutes, and so on ("59s" → "1m" is a second's
 * step too). A negative span reads "0s" until it reaches 1 s.
 */
export function msUntilSpanChanges(ms: number): number {
  if (ms < 0) return 1000 - ms;
  const s = Math.floor(ms / 1000);
  const step =
    s < 60 ? SPAN_STEPS_MS[0] : s < 3600 ? SPAN_STEPS_MS[1] : s < 48 * 3600 ? SPAN_STEPS_MS[2] : SPAN_STEPS_MS[3];
  return step - (ms % step);
}

/**
 * At most `max` characters (code points), cut in the middle with "…" so both ends stay: a
 * command's program and its last arguments say more than either alone.
 */
export function shortenMiddle(s: string, max: number): string {
  const cps = [...s];
  if (cps.length <= max) return s;
  if (max <= 1) return '…'.slice(0, max);
  const head = Math.ceil((max - 1) / 2);
  return `${cps.slice(0, head).join('')}…${cps.slice(cps.length - (max - 1 - head)).join('')}`;
}

/** Words of `text` in lines of at most `width` code points; a word longer than a line is split. */
export function wrapWords(text: string, width: number): string[] {
  const w = Math.max(1, width);
  const lines: string[] = [];
  let line: string[] = [];
  for (const word of text.split(' ')) {
    let cps = [...word];
    if (line.length > 0 && line.length + 1 + cps.length > w) {
      lines.push(line.join(''));
      line = [];
    }
    if (line.length > 0) line.push(' ');
    while (line.length + cps.length > w) {
      const take = w - line.length;
      lines.push([...line, ...cps.slice(0, take)].join(''));
      line = [];
      cps = cps.slice(take);
    }
    line.push(...cps);
  }
  if (line.length > 0 || lines.length === 0) lines.push(line.join(''));
  return lines;
}

/** A running time to the second: "7s", "1m05s", "1h02m" (whole units, rounded down). */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, '0')}m`;
}

/** Left-aligned columns; the last column is not padded. Cells are made safe to print (agent descriptions, paths). */
export function table(cells: string[][]): string {
  if (cells.length === 0) return '';
  const rows = cells.map((r) => r.map(safeText));
  const widths: number[] = [];
  for (const r of rows) r.forEach((c, i) => (widths[i] = Math.max(widths[i] ?? 0, [...c].length)));
  return (
    rows
      .map((r) =>
        r
          .map((c, i) => (i === r.length - 1 ? c : c + ' '.repeat(widths[i]! - [...c].length)))
          .join('  ')
          .trimEnd(),
      )
      .join('\n') + '\n'
  );
}

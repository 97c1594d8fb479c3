/**
 * The ✔/!/✗ lines of `klaude doctor` and `klaude zone check|setup`: one line per check, its fix on
 * the line below, both wrapped at spaces under the detail's column to `width` (0: not wrapped), so
 * a narrow terminal never cuts a path or a command in the middle of a word.
 */
import type { CheckResult } from '../../doctor/check.js';
import type { CommandContext } from '../cli/types.js';
import { safeText } from '../../lib/escapes.js';
import { wrapWords } from '../../lib/format.js';

const MARK = { ok: '✔', warn: '!', error: '✗' } as const;

/** Below this many columns for the text, it goes unwrapped (wrapping would only make it taller). */
const NARROWEST = 20;

export function checkLines(results: readonly CheckResult[], width: number): string[] {
  const name = Math.max(...results.map((r) => r.check.length));
  const indent = ' '.repeat(name + 4);
  const room = width - indent.length;
  const wrap = (text: string): string[] => (width > 0 && room >= NARROWEST ? wrapWords(text, room) : [text]);
  const out: string[] = [];
  for (const r of results) {
    const [first = '', ...rest] = wrap(safeText(r.detail));
    out.push(`${MARK[r.level]} ${r.check.padEnd(name)}  ${first}`, ...rest.map((l) => indent + l));
    if (r.fix && r.level !== 'ok') out.push(...wrap(`fix: ${safeText(r.fix)}`).map((l) => indent + l));
  }
  return out;
}

/** The terminal's width; in a pipe `COLUMNS` when set, else 0 (a file or a program takes lines whole). */
export function checkWidth(ctx: CommandContext): number {
  if (ctx.stdout.isTTY) return ctx.stdout.columns ?? 0;
  const cols = Number(ctx.env.COLUMNS);
  return Number.isInteger(cols) && cols > 0 ? cols : 0;
}

/** `?`: every key of the keymap, by group, with what it does and (when it can't act now) why. */
import { Box } from 'ink';
import { disabledReason, displayKey, helpGroups, KEYMAP, type Binding, type KeyContext } from '../keymap.js';
import { cellWidth, fit, wrapText } from '../text.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './segments.js';

const SCOPE_TAG: Partial<Record<Binding['scope'], string>> = { tree: 'tree', log: 'log' };

/**
 * The overlay's lines (all of them; the component shows a window). A description longer than its
 * room wraps under itself (at 60 columns most were cut off mid-word, and with them what a key does).
 */
export function helpLines(
  ctx: KeyContext,
  width: number,
  theme: Theme,
  keymap: readonly Binding[] = KEYMAP,
): Segment[][] {
  // The key column: as wide as the widest keys need, at most 30% of the width (and 22 cells).
  const widest = Math.max(...keymap.map((b) => cellWidth(b.keys.map(displayKey).join(' '))));
  const keyCol = Math.min(22, Math.max(6, Math.min(widest + 2, Math.floor(width * 0.3))));
  const descRoom = Math.max(1, width - keyCol - 1);
  const under = (text: string, style: Segment['style']): Segment[] => [
    { text: ' '.repeat(keyCol + 1) },
    { text, style },
  ];
  const lines: Segment[][] = [];
  for (const { group, bindings } of helpGroups(keymap)) {
    if (lines.length) lines.push([]);
    lines.push([{ text: group, style: theme.ui.title }]);
    for (const b of bindings) {
      const keys = fit(b.keys.map(displayKey).join(' '), keyCol);
      const tag = SCOPE_TAG[b.scope] ? `[${SCOPE_TAG[b.scope]}] ` : '';
      const reason = disabledReason(b, ctx);
      const style = reason ? theme.ui.keyDisabled : {};
      const [first = '', ...rest] = wrapText(`${tag}${b.description}${b.dangerous ? ' (asks first)' : ''}`, descRoom);
      lines.push([
        { text: keys, style: b.dangerous ? theme.ui.danger : theme.ui.key },
        { text: ' ' },
        { text: first, style },
      ]);
      for (const more of rest) lines.push(under(more, style));
      if (reason) for (const l of wrapText(`now: ${reason}`, descRoom)) lines.push(under(l, theme.ui.muted));
    }
  }
  return lines;
}

export function HelpOverlay({ lines, scroll, height }: { lines: Segment[][]; scroll: number; height: number }) {
  return (
    <Box flexDirection="column">
      {lines.slice(scroll, scroll + height).map((segs, i) => (
        <Line key={scroll + i} segments={segs.length ? segs : [{ text: ' ' }]} />
      ))}
    </Box>
  );
}

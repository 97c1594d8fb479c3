/** `?`: every key of the keymap, by group, with what it does and (when it can't act now) why. */
import { Box } from 'ink';
import { disabledReason, displayKey, helpGroups, KEYMAP, type Binding, type KeyContext } from '../keymap.js';
import { fit, truncate } from '../text.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './segments.js';

const SCOPE_TAG: Partial<Record<Binding['scope'], string>> = { tree: 'tree', log: 'log' };

/** The overlay's lines (all of them; the component shows a window). */
export function helpLines(
  ctx: KeyContext,
  width: number,
  theme: Theme,
  keymap: readonly Binding[] = KEYMAP,
): Segment[][] {
  const keyCol = Math.min(22, Math.max(10, Math.floor(width * 0.3)));
  const lines: Segment[][] = [];
  for (const { group, bindings } of helpGroups(keymap)) {
    if (lines.length) lines.push([]);
    lines.push([{ text: group, style: theme.ui.title }]);
    for (const b of bindings) {
      const keys = fit(b.keys.map(displayKey).join(' '), keyCol);
      const tag = SCOPE_TAG[b.scope] ? `[${SCOPE_TAG[b.scope]}] ` : '';
      const reason = disabledReason(b, ctx);
      const descRoom = Math.max(0, width - keyCol - 1);
      const desc = truncate(`${tag}${b.description}${b.dangerous ? ' (asks first)' : ''}`, descRoom);
      const line: Segment[] = [
        { text: keys, style: b.dangerous ? theme.ui.danger : theme.ui.key },
        { text: ' ' },
        { text: desc, style: reason ? theme.ui.keyDisabled : {} },
      ];
      lines.push(line);
      if (reason)
        lines.push([
          { text: ' '.repeat(keyCol + 1) },
          { text: truncate(`now: ${reason}`, descRoom), style: theme.ui.muted },
        ]);
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

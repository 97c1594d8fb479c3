/**
 * Bottom line: what is being typed into the filter, else a notice (why a key did nothing, what
 * an action did), else the key hints of the current scope, generated from the keymap.
 */
import { Text } from 'ink';
import { memo } from 'react';
import { disabledReason, displayKey, footerBindings, KEYMAP, type Binding, type KeyContext, type Scope } from '../keymap.js';
import type { Notice } from '../state/ui-state.js';
import { cellWidth, truncate } from '../text.js';
import type { Theme } from '../theme.js';
import { Line, type Segment } from './segments.js';

export interface FooterProps {
  scope: Scope;
  ctx: KeyContext;
  notice: Notice | null;
  busy: string | null;
  filterEditing: boolean;
  filter: string;
  width: number;
  theme: Theme;
  keymap?: readonly Binding[];
}

export function hintSegments(scope: Scope, ctx: KeyContext, width: number, theme: Theme, keymap: readonly Binding[] = KEYMAP): Segment[] {
  const out: Segment[] = [];
  let used = 0;
  for (const b of footerBindings(scope, keymap)) {
    const off = disabledReason(b, ctx) !== null;
    if (off && b.hideWhenOff) continue;
    const key = displayKey(b.keys[0]!);
    const piece = `${used ? '  ' : ''}${key} ${b.label}`;
    if (used + cellWidth(piece) > width) break;
    if (used) out.push({ text: '  ' });
    out.push({ text: key, style: off ? theme.ui.keyDisabled : b.dangerous ? theme.ui.danger : theme.ui.key });
    out.push({ text: ` ${b.label}`, style: off ? theme.ui.keyDisabled : theme.ui.muted });
    used += cellWidth(piece);
  }
  return out;
}

export const Footer = memo(function Footer({ scope, ctx, notice, busy, filterEditing, filter, width, theme, keymap }: FooterProps) {
  if (filterEditing) {
    return <Line segments={[{ text: '/', style: theme.ui.key }, { text: truncate(` ${filter}▏`, width - 1) }]} />;
  }
  if (notice) {
    const style = notice.tone === 'error' ? theme.ui.error : notice.tone === 'warn' ? theme.ui.warn : theme.ui.info;
    return <Text {...style}>{truncate(notice.text, width)}</Text>;
  }
  if (busy) return <Text {...theme.ui.info}>{truncate(`… ${busy}`, width)}</Text>;
  return <Line segments={hintSegments(scope, ctx, width, theme, keymap)} />;
});

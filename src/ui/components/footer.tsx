/**
 * Bottom line: what is being typed into the filter, else a notice (why a key did nothing, what
 * an action did), else the key hints of the current scope, generated from the keymap.
 */
import { Text } from 'ink';
import { memo } from 'react';
import {
  disabledReason,
  displayKey,
  footerBindings,
  KEYMAP,
  type Binding,
  type KeyContext,
  type Scope,
} from '../keymap.js';
import type { Notice } from '../state/notice.js';
import { cellWidth, truncate } from '../text.js';
import type { Theme } from '../theme.js';
import { countRender } from '../render/ui-stats.js';
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

/**
 * The scope's hints in footer order, as many as fit. `? help` and `q quit` (group App) always stay:
 * when the line is too narrow for everything, it is the other hints that go.
 */
export function hintSegments(
  scope: Scope,
  ctx: KeyContext,
  width: number,
  theme: Theme,
  keymap: readonly Binding[] = KEYMAP,
): Segment[] {
  const shown = footerBindings(scope, keymap)
    .map((b) => ({ b, off: disabledReason(b, ctx) !== null, key: displayKey(b.keys[0]!) }))
    .filter((h) => !(h.off && h.b.hideWhenOff));
  const size = (h: { b: Binding; key: string }): number => cellWidth(`  ${h.key} ${h.b.label}`);
  const kept = shown.filter((h) => h.b.group === 'App');
  let room = width + 2 - kept.reduce((n, h) => n + size(h), 0); // +2: the first hint has no gap
  const picked = new Set(kept.map((h) => h.b));
  for (const h of shown) {
    if (picked.has(h.b)) continue;
    if (size(h) > room) break;
    room -= size(h);
    picked.add(h.b);
  }
  const out: Segment[] = [];
  let used = 0;
  for (const h of shown) {
    if (!picked.has(h.b)) continue;
    const piece = `${used ? '  ' : ''}${h.key} ${h.b.label}`;
    if (used + cellWidth(piece) > width) break;
    if (used) out.push({ text: '  ' });
    out.push({ text: h.key, style: h.off ? theme.ui.keyDisabled : h.b.dangerous ? theme.ui.danger : theme.ui.key });
    out.push({ text: ` ${h.b.label}`, style: h.off ? theme.ui.keyDisabled : theme.ui.muted });
    used += cellWidth(piece);
  }
  return out;
}

/** A notice in one line: when it is too long, its text is cut so that its hint (what to do) stays. */
export function noticeLine(n: Notice, width: number): string {
  const full = n.hint ? `${n.text} — ${n.hint}` : n.text;
  if (!n.hint || cellWidth(full) <= width) return truncate(full, width);
  const hint = ` — ${n.hint}`;
  const room = width - cellWidth(hint);
  // The text keeps at least a few words; past that the hint is cut too.
  if (room < 16) return truncate(`${truncate(n.text, 16)}${hint}`, width);
  return `${truncate(n.text, room)}${hint}`;
}

export const Footer = memo(function Footer({
  scope,
  ctx,
  notice,
  busy,
  filterEditing,
  filter,
  width,
  theme,
  keymap,
}: FooterProps) {
  countRender('footer');
  if (filterEditing) {
    return <Line segments={[{ text: '/', style: theme.ui.key }, { text: truncate(` ${filter}▏`, width - 1) }]} />;
  }
  if (notice) {
    const style = notice.tone === 'error' ? theme.ui.error : notice.tone === 'warn' ? theme.ui.warn : theme.ui.info;
    return <Text {...style}>{noticeLine(notice, width)}</Text>;
  }
  if (busy) return <Text {...theme.ui.info}>{truncate(`… ${busy}`, width)}</Text>;
  return <Line segments={hintSegments(scope, ctx, width, theme, keymap)} />;
});

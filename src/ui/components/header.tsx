/** Top line: project, instance, and how many sessions are in each state. */
import { Text } from 'ink';
import { memo } from 'react';
import { shortId } from '../../core/ids.js';
import { SESSION_STATUSES } from '../../core/status.js';
import type { StatusCounts, Usage } from '../../feeds/session-tree.js';
import { cellWidth, formatCost, formatCount, truncate } from '../text.js';
import { STATUS_GLYPH, type Theme } from '../theme.js';
import { Line, type Segment } from './segments.js';
import { countRender } from '../render/ui-stats.js';

export interface HeaderProps {
  project: string;
  instanceId: string;
  counts: StatusCounts;
  /** The project's total (every session listed, agents and interactive ones). */
  usage?: Usage;
  width: number;
  theme: Theme;
}

function countSegments(counts: StatusCounts, theme: Theme, compact: boolean): Segment[] {
  const parts: Segment[] = [];
  for (const st of SESSION_STATUSES) {
    const n = counts[st];
    if (n === 0) continue;
    // Sessions waiting for the person stand out (they also ring the terminal's bell and count in its title).
    const style = st === 'waiting' ? theme.ui.attention : theme.status[st];
    parts.push(
      { text: compact ? ' ' : '  ' },
      { text: compact ? `${STATUS_GLYPH[st]}${n}` : `${STATUS_GLYPH[st]} ${n} ${st}`, style },
    );
  }
  if (parts.length === 0) parts.push({ text: '  no sessions yet', style: theme.ui.muted });
  return parts;
}

const widthOf = (segs: Segment[]): number => cellWidth(segs.map((p) => p.text).join(''));

function usageText(u: Usage | undefined): string {
  if (!u || (u.costUsd <= 0 && u.tokens <= 0)) return '';
  return ` · ${[u.costUsd > 0 ? formatCost(u.costUsd) : '', u.tokens > 0 ? `${formatCount(u.tokens)} tok` : ''].filter(Boolean).join(' ')}`;
}

/**
 * The left part: project, instance and usage, whole pieces first dropped (usage, then the instance)
 * where they do not fit, so a narrow header never shows a figure cut to "$0…".
 */
export function headerLeft(project: string, instanceId: string, usage: Usage | undefined, room: number): string {
  const base = `klaude · ${project}`;
  const id = ` · ${shortId(instanceId)}`;
  for (const left of [`${base}${id}${usageText(usage)}`, `${base}${id}`]) if (cellWidth(left) <= room) return left;
  return truncate(base, room);
}

export const Header = memo(function Header({ project, instanceId, counts, usage, width, theme }: HeaderProps) {
  countRender('header');
  const whole = `klaude · ${project} · ${shortId(instanceId)}${usageText(usage)}`;
  // Full labels when they fit beside the title, else glyph + number only.
  let parts = countSegments(counts, theme, false);
  if (cellWidth(whole) + widthOf(parts) > width) parts = countSegments(counts, theme, true);
  const rightWidth = widthOf(parts);
  const l = headerLeft(project, instanceId, usage, Math.max(8, width - rightWidth));
  if (cellWidth(l) + rightWidth > width)
    return <Text {...theme.ui.title}>{headerLeft(project, instanceId, usage, width)}</Text>;
  return (
    <Line
      segments={[{ text: l, style: theme.ui.title }, { text: ' '.repeat(width - cellWidth(l) - rightWidth) }, ...parts]}
    />
  );
});

/** The agent tree: one row per session, the selection kept in view. */
import { shownTitle } from '../../core/session-title.js';
import { Box, Text } from 'ink';
import { memo, useLayoutEffect, useRef } from 'react';
import { shortId } from '../../core/ids.js';
import { elapsed } from '../../lib/format.js';
import { progressLabel } from '../../core/progress.js';
import { isWorking, type TreeRow } from '../../feeds/session-tree.js';
import {
  cellWidth,
  fit,
  formatAge,
  formatCost,
  formatCount,
  sanitize,
  truncate,
  truncateAtWord,
  wrapText,
} from '../text.js';
import { isTerminal } from '../../core/status.js';
import { STATUS_GLYPH, type Theme } from '../theme.js';
import { Line, type Segment } from './segments.js';
import { countRender } from '../render/ui-stats.js';
import { TREE_INSIDE, type ClockSpot, type TreeClocks } from '../render/clock-painter.js';
import type { ClockPaint } from '../deps.js';

export interface TreePaneProps {
  rows: readonly TreeRow[];
  selected: number;
  focused: boolean;
  /** Inner width and height. */
  width: number;
  height: number;
  theme: Theme;
  now: number;
  emptyText: string;
  /** Sessions running in a PTY host (tagged "pty"). */
  ptyIds?: ReadonlySet<string>;
  /** The tree is the only pane (a narrow terminal): titles before right-hand columns. */
  alone?: boolean;
  /** Told where the running rows' clocks are drawn, to move them between renders (render/clock-painter.ts). */
  clocks?: ClockPaint;
}

/** The window of rows to show so the selection stays in view (kept near the middle). */
export function treeWindow(count: number, selected: number, height: number): { top: number; end: number } {
  if (count <= height) return { top: 0, end: count };
  const top = Math.max(0, Math.min(selected - Math.floor(height / 2), count - height));
  return { top, end: top + height };
}

/** The pane's lines: a row's index, or a heading's text before the first row of its group. */
function treeLines(rows: readonly TreeRow[]): (number | string)[] {
  const out: (number | string)[] = [];
  rows.forEach((r, i) => {
    if (r.heading !== undefined) out.push(r.heading);
    out.push(i);
  });
  return out;
}

/** Cells of the right-hand columns: short id, runtime, age, tokens, cost (tokens and cost of the row's subtree). */
const META_WIDTHS = [8, 6, 3, 5, 6];
/** The age's place among them (shown when more columns than this are). */
export const AGE_COLUMN = 2;

/**
 * Cells the left part keeps before a right-hand column is shown. Beside the log pane (whose title
 * names the selected session): the fold, glyph, type and a little more. Alone (a narrow terminal),
 * the tree is all the person sees: also room for a tag or some depth and a dozen cells of title,
 * which is what tells two agents of one type apart.
 */
export const LABEL_ROOM = { beside: 22, alone: 32 } as const;

/** How many right-hand columns a tree of this width shows (the same for every row, so they align). */
export function metaColumnCount(width: number, labelRoom: number = LABEL_ROOM.beside): number {
  let n = META_WIDTHS.length;
  const used = (k: number): number => META_WIDTHS.slice(0, k).reduce((a, w) => a + w + 1, 0);
  while (n > 0 && width - used(n) < labelRoom) n--;
  return n;
}

function metaColumns(row: TreeRow, now: number, count: number): string {
  if (count === 0) return '';
  const s = row.session;
  // A parent shows what its whole subtree cost (itself and every agent under it).
  const { tokens, costUsd } = row.subtree;
  const parts = [
    shortId(s.id).padEnd(8),
    // A zone's agent shows where it runs instead (docs/zones.md): `@build`.
    (s.zone ? `@${s.zone}`.slice(0, 6) : s.runtime).padEnd(6),
    formatAge(now - s.createdAt).padStart(3),
    (tokens > 0 ? formatCount(tokens) : '').padStart(5),
    (costUsd > 0 ? formatCost(costUsd) : '').padStart(6),
  ];
  return ` ${parts.slice(0, count).join(' ')}`;
}

/**
 * What follows the type: for a running row its elapsed time and what it does now ("1m05s Bash:
 * npm test"; it moves with the clock), for a failed one (or a failed last turn) why, else its title
 * or prompt.
 */
export function rowDetail(row: TreeRow, now: number): string {
  const d = ownDetail(row, now);
  // In the needs-you group of all projects: whose it is.
  return row.where ? `${sanitize(row.where)}: ${d}` : d;
}

function ownDetail(row: TreeRow, now: number): string {
  const s = row.session;
  const flat = (x: string | null | undefined): string =>
    sanitize(x ?? '')
      .replace(/\s+/g, ' ')
      .trim();
  if (isWorking(s)) {
    const progress = progressLabel(s.progress, s.type);
    const doing = flat(s.activity) || (s.status === 'waiting' ? 'waiting' : 'working');
    return `${elapsed(now - (s.runStartedAt ?? s.updatedAt))} ${progress ? `${progress} ` : ''}${doing}`;
  }
  // Failed, or idle after an interactive turn that failed (StopFailure): why.
  if ((s.status === 'failed' || s.status === 'idle') && s.error) return `✗ ${flat(s.error)}`;
  // A fork (`klaude fork`) names its origin, which sits beside it.
  return s.forkedFrom ? `forked from ${shortId(s.forkedFrom)}: ${flat(shownTitle(s))}` : flat(shownTitle(s));
}

const NEEDS_YOU = ' needs you';
const NEEDS_YOU_SHORT = ' !';
const PTY_TAG = ' pty';
/** A `--worktree` agent: it works on a branch of its own (c shows its diff). */
const WT_TAG = ' wt';
/** An agent outside the sandbox (the log pane's title says why). */
const UNSANDBOXED_TAG = ' unsandboxed';

export function treeRowSegments(
  row: TreeRow,
  width: number,
  theme: Theme,
  now: number,
  pty = false,
  leftRoom: number = LABEL_ROOM.beside,
): Segment[] {
  const s = row.session;
  const indent = '  '.repeat(Math.min(row.depth, 12));
  const fold = row.hasChildren ? (row.collapsed ? '▸' : '▾') : ' ';
  const head = `${indent}${fold} `;
  const glyph = STATUS_GLYPH[s.status];
  const meta = metaColumns(row, now, metaColumnCount(width, leftRoom));
  const labelRoom = Math.max(0, width - cellWidth(head) - 2 - cellWidth(meta));
  const type = s.type === 'tui' ? 'claude' : s.type;
  const detail = rowDetail(row, now);
  const typeText = truncate(type, labelRoom);
  // Marks after the type: the session needs the person; it runs in a PTY (dropped when no room).
  const waiting = s.status === 'waiting' && s.archivedAt === null;
  // (a row of the needs-you group says so by its place: its room goes to its project's name)
  const tagged = waiting && !row.where;
  let tagRoom = labelRoom - cellWidth(typeText);
  const needsText = !tagged
    ? ''
    : tagRoom >= NEEDS_YOU.length
      ? NEEDS_YOU
      : tagRoom >= NEEDS_YOU_SHORT.length
        ? NEEDS_YOU_SHORT
        : '';
  tagRoom -= needsText.length;
  const ptyText = pty && tagRoom >= PTY_TAG.length ? PTY_TAG : '';
  tagRoom -= ptyText.length;
  // The run queue: its place (↑ high, ↓ low priority), or the runtime's lowered limit after rate limiting.
  const queueTag =
    s.status === 'queued' && s.queuePosition
      ? ` #${s.queuePosition}${s.priority ? (s.priority > 0 ? '↑' : '↓') : ''}`
      : s.rateLimitMax != null && (s.status === 'running' || s.status === 'queued')
        ? ' rate-limited'
        : '';
  const queueText = tagRoom >= queueTag.length ? queueTag : '';
  tagRoom -= queueText.length;
  const wtText = s.worktreeBranch && tagRoom >= WT_TAG.length ? WT_TAG : '';
  tagRoom -= wtText.length;
  const unsandboxed = s.sandbox?.startsWith('unsandboxed') === true && !isTerminal(s.status);
  const outText = unsandboxed && tagRoom >= UNSANDBOXED_TAG.length ? UNSANDBOXED_TAG : '';
  tagRoom -= outText.length;
  // The title/prompt when it fits whole, or when a useful part of it does (a short title such as
  // "hi" beside a tag was dropped for want of the room a long one needs to be of use).
  const detailRoom = tagRoom;
  const whole = detail ? ` · ${detail}` : '';
  // (a running row's clock needs less room than a title to be of use)
  const useful = cellWidth(whole) <= detailRoom || detailRoom >= (isWorking(s) ? 7 : 12);
  // (cut at a word's end where that costs little; the " · " before it is never the cut)
  const detailText = whole && useful ? truncateAtWord(whole, detailRoom, 3) : '';
  const pad = ' '.repeat(Math.max(0, detailRoom - cellWidth(detailText)));
  const dim = !row.match || s.archivedAt !== null;
  const text = dim ? theme.ui.muted : {};
  return [
    { text: head, style: theme.ui.muted },
    { text: glyph, style: waiting ? theme.ui.attention : theme.status[s.status] },
    { text: ' ' },
    { text: typeText, style: row.match && s.archivedAt === null ? { bold: true } : text },
    ...(needsText ? [{ text: ' ' }, { text: needsText.slice(1), style: theme.ui.attention }] : []),
    ...(ptyText ? [{ text: ' ' }, { text: ptyText.slice(1), style: theme.ui.tag }] : []),
    ...(queueText ? [{ text: ' ' }, { text: queueText.slice(1), style: theme.ui.muted }] : []),
    ...(wtText ? [{ text: ' ' }, { text: wtText.slice(1), style: theme.ui.tag }] : []),
    // (in yellow, not on yellow: that look is kept for what needs the person, so a finished
    // unsandboxed agent does not read as one waiting for an answer)
    ...(outText ? [{ text: ' ' }, { text: outText.slice(1), style: theme.ui.warn }] : []),
    { text: detailText, style: theme.ui.muted },
    { text: pad },
    { text: meta, style: theme.ui.muted },
  ];
}

export const TreePane = memo(function TreePane({
  rows,
  selected,
  focused,
  width,
  height,
  theme,
  now,
  emptyText,
  ptyIds,
  alone = false,
  clocks,
}: TreePaneProps) {
  countRender('tree');
  const owner = useRef({});
  // (unmounted: its clocks are no longer on the screen; another tree may have rendered since)
  useLayoutEffect(() => () => clocks?.rendered(null, owner.current), [clocks]);
  if (rows.length === 0) {
    clocks?.rendered(null, owner.current);
    return (
      <Box flexDirection="column">
        {wrapText(emptyText, width)
          .slice(0, height)
          .map((l, i) => (
            <Text key={i} {...theme.ui.muted}>
              {l}
            </Text>
          ))}
      </Box>
    );
  }
  // All projects: a heading line above the first row of each group (the window counts lines).
  const lines = treeLines(rows);
  const selLine = lines.findIndex((l) => l === selected);
  const { top, end } = treeWindow(lines.length, selLine === -1 ? 0 : selLine, height);
  const leftRoom = alone ? LABEL_ROOM.alone : LABEL_ROOM.beside;
  const clocked: TreeClocks | null = clocks
    ? {
        now,
        spots: [],
        loose: [],
        ages: metaColumnCount(width, leftRoom) > AGE_COLUMN ? lines.slice(top, end).flatMap(createdAtOf(rows)) : [],
      }
    : null;
  const out = (
    <Box flexDirection="column">
      {lines.slice(top, end).map((at, i) => {
        if (typeof at === 'string')
          return <Line key={`h${top + i}`} segments={[{ text: fit(sanitize(at), width), style: theme.ui.title }]} />;
        const row = rows[at]!;
        const isSel = at === selected;
        const pty = ptyIds?.has(row.session.id) ?? false;
        const segs = treeRowSegments(row, width, theme, now, pty, leftRoom);
        if (clocked) clockOf(clocked, segs, row, now, i);
        // Keyed by place: a session can be on two rows (needs you, and its project's tree).
        const key = row.heading === undefined && !row.projectId ? row.session.id : `r${at}`;
        if (!isSel) return <Line key={key} segments={segs} />;
        // The selected row: the selection style over every piece (inverse when the tree has focus).
        const sel = focused ? theme.ui.selected : theme.ui.selectedUnfocused;
        const used = cellWidth(segs.map((x) => x.text).join(''));
        const all = [...segs, { text: fit('', Math.max(0, width - used)) }].map((x) => ({
          text: x.text,
          style: { ...x.style, ...sel },
        }));
        return <Line key={key} segments={all} />;
      })}
    </Box>
  );
  // (in the render: Ink draws the frame of this render before the commit's effects run)
  clocks?.rendered(clocked, owner.current);
  return out;
});

const createdAtOf =
  (rows: readonly TreeRow[]) =>
  (at: number | string): number[] =>
    typeof at === 'string' ? [] : [rows[at]!.session.createdAt];

/**
 * Where a running row's clock is in its row (the pane's line `line`): shown whole, it is a spot the
 * clock painter can move; cut or left out, the row changes as it reads or measures.
 */
function clockOf(out: TreeClocks, segs: readonly Segment[], row: TreeRow, now: number, line: number): void {
  const s = row.session;
  if (!isWorking(s)) return;
  const from = s.runStartedAt ?? s.updatedAt;
  const text = elapsed(now - from);
  // The detail is the third piece from the end (detail, padding, right-hand columns).
  const at = segs.length - 3;
  const detail = segs[at]!.text;
  const prefix = ` · ${row.where ? `${sanitize(row.where)}: ` : ''}`;
  if (detail.startsWith(prefix + text)) {
    let x = TREE_INSIDE.x + cellWidth(prefix);
    for (let i = 0; i < at; i++) x += cellWidth(segs[i]!.text);
    (out.spots as ClockSpot[]).push({ x, y: TREE_INSIDE.y + line, from, text });
  } else (out.loose as TreeClocks['loose'][number][]).push({ from, text, shown: detail !== '' });
}

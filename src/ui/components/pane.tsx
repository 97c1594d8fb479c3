/**
 * A bordered pane with its title drawn into the top border:  ╭─ title ──────╮
 * Content is `rows` lines tall, never more (the caller gives at most that many lines).
 */
import { Box, Text } from 'ink';
import type { ReactNode } from 'react';
import { cellWidth, truncate } from '../text.js';
import type { Theme } from '../theme.js';

export interface PaneProps {
  title: string;
  /** Right-aligned in the top border (e.g. "following"). */
  status?: string;
  width: number;
  /** Content rows (the pane is rows + 2 tall). */
  rows: number;
  focused: boolean;
  theme: Theme;
  children: ReactNode;
}

export function Pane({ title, status, width, rows, focused, theme, children }: PaneProps) {
  const borderColor = focused ? theme.ui.borderFocused : theme.ui.border;
  const inner = Math.max(0, width - 2);
  const t = truncate(` ${title} `, Math.max(0, inner - 2));
  const st = status ? truncate(` ${status} `, Math.max(0, inner - 2 - cellWidth(t) - 1)) : '';
  const fill = Math.max(0, inner - 1 - cellWidth(t) - cellWidth(st) - (st ? 1 : 0));
  const titleStyle = focused ? { ...theme.ui.title, inverse: theme.name === 'no-color' } : theme.ui.muted;
  return (
    <Box flexDirection="column" width={width} height={rows + 2}>
      <Text wrap="truncate-end">
        <Text color={borderColor}>╭─</Text>
        <Text {...titleStyle}>{t}</Text>
        <Text color={borderColor}>{'─'.repeat(fill)}</Text>
        {st ? <Text {...theme.ui.muted}>{st}</Text> : null}
        <Text color={borderColor}>{st ? '─╮' : '╮'}</Text>
      </Text>
      <Box
        flexDirection="column"
        width={width}
        height={rows + 1}
        borderStyle="round"
        borderTop={false}
        borderColor={borderColor}
        paddingX={1}
      >
        {children}
      </Box>
    </Box>
  );
}

/** The selected session's log: the wrapped lines from `top`, `height` of them. */
import { Box, Text } from 'ink';
import { memo } from 'react';
import type { LogLine } from '../log/event-lines.js';
import type { Theme } from '../theme.js';
import { countRender } from '../render/ui-stats.js';

export interface LogPaneProps {
  lines: readonly LogLine[];
  top: number;
  height: number;
  theme: Theme;
}

export const LogPane = memo(function LogPane({ lines, top, height, theme }: LogPaneProps) {
  countRender('log');
  const shown = lines.slice(top, top + height);
  return (
    <Box flexDirection="column">
      {shown.map((l, i) => (
        <Text key={top + i} wrap="truncate-end" {...theme.tone[l.tone]}>
          {l.text === '' ? ' ' : l.text}
        </Text>
      ))}
    </Box>
  );
});

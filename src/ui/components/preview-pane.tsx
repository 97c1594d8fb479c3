/** A PTY session's screen, live: the bottom of it, cut to the pane (see preview/crop.ts). */
import { Box, Text } from 'ink';
import { memo } from 'react';
import type { PtySnapshot } from '../../pty/viewer.js';
import { previewLines } from '../preview/crop.js';
import type { Theme } from '../theme.js';

export interface PreviewPaneProps {
  screen: PtySnapshot;
  width: number;
  height: number;
  theme: Theme;
}

export const PreviewPane = memo(function PreviewPane({ screen, width, height, theme }: PreviewPaneProps) {
  const lines = previewLines(screen, width, height, theme.name === 'color');
  return (
    <Box flexDirection="column">
      {lines.map((l, i) => (
        <Text key={i} wrap="truncate-end">
          {l === '' ? ' ' : l}
        </Text>
      ))}
    </Box>
  );
});

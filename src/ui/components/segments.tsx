import { Text } from 'ink';
import type { Style } from '../theme.js';
import { countRender } from '../render/ui-stats.js';

export interface Segment {
  text: string;
  style?: Style;
}

/** One terminal line built from styled pieces; never wraps (the caller fits it to the width). */
export function Line({ segments, style }: { segments: readonly Segment[]; style?: Style }) {
  countRender('line');
  return (
    <Text wrap="truncate-end" {...style}>
      {segments.map((s, i) => (
        <Text key={i} {...s.style}>
          {s.text}
        </Text>
      ))}
    </Text>
  );
}

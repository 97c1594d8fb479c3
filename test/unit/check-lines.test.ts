// Narrow terminals: doctor's and zone check's lines and review --show's findings wrap at spaces
// under their text's column, never mid-word; unwrapped where there is no width.
import { describe, expect, it } from 'vitest';
import { checkLines } from '../../src/commands/setup/check-lines.js';
import { findingLines } from '../../src/commands/person/review-lines.js';
import { failed, passed } from '../../src/doctor/check.js';
import type { ReviewView } from '../../src/db/repos/reviews.js';

describe('checkLines', () => {
  const results = [
    passed('init', 'reaps dead orphans lazily (a zombie for 1052 ms): klaude counts a zombie as dead'),
    failed('claude', "'claude' not found (from PATH)", 'install it: npm install -g @anthropic-ai/claude-code'),
  ];

  it('wraps detail and fix at spaces under the detail, within the width', () => {
    const lines = checkLines(results, 44);
    expect(lines).toEqual([
      '✔ init    reaps dead orphans lazily (a',
      '          zombie for 1052 ms): klaude counts',
      '          a zombie as dead',
      "✗ claude  'claude' not found (from PATH)",
      '          fix: install it: npm install -g',
      '          @anthropic-ai/claude-code',
    ]);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(44);
  });

  it('with no width (a pipe), one line each', () => {
    expect(checkLines(results, 0)).toEqual([
      '✔ init    reaps dead orphans lazily (a zombie for 1052 ms): klaude counts a zombie as dead',
      "✗ claude  'claude' not found (from PATH)",
      '          fix: install it: npm install -g @anthropic-ai/claude-code',
    ]);
  });
});

describe('findingLines', () => {
  const review: ReviewView = {
    sessionId: 'r',
    originId: 'o',
    type: 'reviewer',
    runtime: 'claude',
    status: 'done',
    subject: 'diff',
    focus: null,
    summary: 'one real problem in the wait helper',
    findings: [
      {
        file: 'src/a.ts',
        line: 12,
        severity: 'high',
        text: 'the timeout is never cleared when the event arrives first',
      },
    ],
    error: null,
    sentAt: null,
    createdAt: 0,
    archivedAt: null,
  };

  it('wrap: every word, under the text', () => {
    expect(findingLines(review, { indent: '  ', width: 50, wrap: true })).toEqual([
      '  summary: one real problem in the wait helper',
      '  high    src/a.ts:12  the timeout is never',
      '                       cleared when the event',
      '                       arrives first',
    ]);
  });

  it('without wrap, cut to the width (the sessions listing)', () => {
    expect(findingLines(review, { indent: '  ', width: 50, max: 5 })).toEqual([
      '  high    src/a.ts:12  the timeout is never clear…',
    ]);
  });
});

// The bundle's stand-ins for Ink's text helpers (src/ui/render/ink-text.ts) give Ink's answers,
// and their memory stays bounded however many texts go through them.
import cliTruncate from 'cli-truncate';
import { describe, expect, it } from 'vitest';
import wrapAnsi from 'wrap-ansi';
// Ink does not export these; the test reads them from the installed package by path.
import inkMeasureText from '../../node_modules/ink/build/measure-text.js';
import inkSanitize from '../../node_modules/ink/build/sanitize-ansi.js';
import inkWrapText from '../../node_modules/ink/build/wrap-text.js';
import { measureText, sanitizeWith, wrapTextWith } from '../../src/ui/render/ink-text.js';

const TEXTS = [
  '',
  'hello world',
  '\u001b[1mbold\u001b[22m and \u001b[38;5;208mcolour\u001b[39m that runs on past the edge of a narrow pane',
  'two\nlines',
  '日本語のテキスト and 👍🏽 thumbs',
  'e\u0301 combining',
  'cursor \u001b[2Kcleared\u001b[3A up',
  'link \u001b]8;;https://example.com\u0007here\u001b]8;;\u0007',
  'c1 \u009b31mx',
  '\u001b[7m  \u001b[27m│ ✓ done · 12s writing…',
];

describe('Ink text helpers', () => {
  it('measure, wrap, truncate and sanitise as Ink does', () => {
    const wrapText = wrapTextWith(wrapAnsi, cliTruncate);
    const sanitize = sanitizeWith(inkSanitize);
    for (let round = 0; round < 2; round++) {
      // (the second round answers from the memos)
      for (const t of TEXTS) {
        expect(measureText(t), JSON.stringify(t)).toEqual(inkMeasureText(t));
        expect(sanitize(t), JSON.stringify(t)).toBe(inkSanitize(t));
        for (const w of [1, 5, 12, 40]) {
          for (const type of ['wrap', 'truncate', 'truncate-end', 'truncate-middle', 'truncate-start', 'end']) {
            expect(wrapText(t, w, type), `${JSON.stringify(t)} ${w} ${type}`).toBe(inkWrapText(t, w, type as never));
          }
        }
      }
    }
  });

  it('forget what is no longer asked for', () => {
    const calls: string[] = [];
    const sanitize = sanitizeWith((t) => (calls.push(t), t.replace(/\u001b\[\d*K/g, '')));
    for (let i = 0; i < 20_000; i++) sanitize(`line ${i}\u001b[K`);
    // Recent texts are remembered; the first is long gone and is cleaned again.
    sanitize('line 19999\u001b[K');
    sanitize('line 0\u001b[K');
    expect(calls.length).toBe(20_001);
    expect(calls.at(-1)).toBe('line 0\u001b[K');
  });
});

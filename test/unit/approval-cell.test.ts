// The `sessions` cell of a pending permission request: wrapped, never cut mid-command when it can
// be helped; its middle shortened (both ends kept) only past the lines it may take.
import { describe, expect, it } from 'vitest';
import { fitLastCell } from '../../src/commands/sessions/approval-cell.js';
import { shortenMiddle, wrapWords } from '../../src/lib/format.js';

describe('shortenMiddle and wrapWords', () => {
  it('keep both ends, and break at spaces (a word longer than a line is split)', () => {
    expect(shortenMiddle('abcdefghij', 10)).toBe('abcdefghij');
    expect(shortenMiddle('abcdefghij', 7)).toBe('abc…hij');
    expect(wrapWords('npm run compile -- --watch=false', 12)).toEqual(['npm run', 'compile --', '--watch=fals', 'e']);
    expect(wrapWords('', 5)).toEqual(['']);
  });
});

describe('fitLastCell', () => {
  const head = 'ABCD1234  waiting  general  ';
  it('leaves a row that fits alone, and wraps the cell in its column when it fits there whole', () => {
    expect(fitLastCell(`${head}short`, head.length, 80, '')).toEqual([`${head}short`]);
    const lines = fitLastCell(`${head}needs approval: Bash: rm -rf build && npm test`, head.length, 60, '');
    expect(lines).toEqual([`${head}needs approval: Bash: rm -rf`, `${' '.repeat(head.length)}build && npm test`]);
  });

  it('puts the cell under the row when its column is too narrow, and cuts its middle past four lines', () => {
    const cell = `needs approval: Bash: ${'word '.repeat(60)}the end (klaude approve|deny ABCD1234)`;
    const lines = fitLastCell(`${head}${cell}`, head.length, 40, '│  ');
    expect(lines[0]).toBe(head.trimEnd());
    expect(lines).toHaveLength(5);
    for (const l of lines.slice(1)) expect(l.startsWith('│  ')).toBe(true);
    for (const l of lines) expect([...l].length).toBeLessThanOrEqual(40);
    const text = lines
      .slice(1)
      .map((l) => l.slice(3))
      .join(' ');
    expect(text).toContain('needs approval: Bash: word');
    expect(text).toContain('…');
    expect(text).toMatch(/the end \(klaude approve\|deny ABCD1234\)$/);
  });
});

// Where the panes go for a terminal size (src/ui/layout.ts), and what a tree row has room for there.
import { describe, expect, it } from 'vitest';
import { computeLayout, innerWidth } from '../../src/ui/layout.js';
import { LABEL_ROOM, metaColumnCount } from '../../src/ui/components/tree-pane.js';

/** Cells a row's type and title get beside the right-hand figures (as tree-pane.tsx counts them). */
function labelRoom(columns: number): number {
  const l = computeLayout({ columns, rows: 40 });
  const inner = innerWidth(l.treeWidth);
  const meta = [8, 6, 3, 5, 6].slice(0, metaColumnCount(inner, l.narrow ? LABEL_ROOM.alone : LABEL_ROOM.beside));
  return inner - 4 - meta.reduce((a, w) => a + w + 1, 0);
}

describe('layout', () => {
  it('one pane at a time below 90 columns, side by side from there', () => {
    expect(computeLayout({ columns: 89, rows: 30 }).narrow).toBe(true);
    const l = computeLayout({ columns: 90, rows: 30 });
    expect(l.narrow).toBe(false);
    expect(l.treeWidth + l.logWidth).toBe(90);
  });

  it('a wide terminal gives the titles room, the log keeping about half', () => {
    // At 160 columns the tree had 67 cells, 35 of them figures: a dozen cells of title, fewer than
    // the tree alone shows at 80 columns.
    expect(labelRoom(80)).toBe(39);
    expect(labelRoom(160)).toBeGreaterThanOrEqual(30);
    expect(labelRoom(200)).toBeGreaterThan(labelRoom(160));
    for (const columns of [160, 200, 260]) {
      const l = computeLayout({ columns, rows: 40 });
      expect([columns, l.logWidth >= columns / 2]).toEqual([columns, true]);
    }
  });
});

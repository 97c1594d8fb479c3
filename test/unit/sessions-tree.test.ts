import { describe, expect, it } from 'vitest';
import { buildTree, countNodes, flattenTree, pruneTree } from '../../src/core/tree.js';

const item = (id: string, parentId: string | null = null, keep = true) => ({ id, parentId, keep });

describe('session tree', () => {
  const items = [item('A'), item('B', 'A'), item('C', 'B'), item('D', 'A'), item('E'), item('F', 'gone')];

  it('nests by parent id in input order; orphans become roots', () => {
    const roots = buildTree(items);
    expect(roots.map((r) => r.item.id)).toEqual(['A', 'E', 'F']);
    expect(roots[0]!.children.map((c) => c.item.id)).toEqual(['B', 'D']);
    expect(roots[0]!.children[0]!.children.map((c) => c.item.id)).toEqual(['C']);
    expect(countNodes(roots)).toBe(6);
  });

  it('draws tree glyphs', () => {
    const rows = flattenTree(buildTree(items)).map((r) => `${r.prefix}${r.item.id}`);
    expect(rows).toEqual(['A', '├─ B', '│  └─ C', '└─ D', 'E', 'F']);
    const cont = flattenTree(buildTree(items)).map((r) => r.continuation);
    expect(cont[0]).toBe('│  '); // A has children
    expect(cont[1]).toBe('│  │  '); // B, not last, has children
    expect(cont[2]).toBe('│        '); // C under B (B not last), leaf: 3 in from C's id
  });

  it('breaks cycles so every item shows once', () => {
    const roots = buildTree([item('X', 'Y'), item('Y', 'X'), item('Z', 'Z')]);
    expect(countNodes(roots)).toBe(3);
  });

  it('attaches an item whose ancestors loop among themselves, and stops walking the loop', () => {
    // P and Q point at each other (both become roots); walking up from R's parent P never reaches R.
    const roots = buildTree([item('P', 'Q'), item('Q', 'P'), item('R', 'P'), item('S', 'R')]);
    expect(countNodes(roots)).toBe(4);
    const rows = flattenTree(roots).map((r) => `${r.prefix}${r.item.id}`);
    expect(rows).toEqual(['P', '└─ R', '   └─ S', 'Q']);
  });

  it('prunes, keeping ancestors of kept nodes', () => {
    const t = buildTree([
      item('A', null, false),
      item('B', 'A', false),
      item('C', 'B', true),
      item('D', 'A', false),
      item('E', null, false),
    ]);
    const { roots, dropped } = pruneTree(t, (i) => i.keep);
    expect(flattenTree(roots).map((r) => r.item.id)).toEqual(['A', 'B', 'C']);
    expect(dropped).toBe(2);
  });
});

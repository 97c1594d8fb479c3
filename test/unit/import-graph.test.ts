import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findCycle as cycleIn, folderEdges, LAYERS } from '../../scripts/import-graph.mjs';

const edges = folderEdges('src');

describe('the folder import graph of src/', () => {
  it('has no cycles', () => {
    expect(edges.length).toBeGreaterThan(50); // the graph was really read
    expect(cycleIn(edges)).toBeUndefined();
  });

  it('only goes downward in the layer order', () => {
    const rank = new Map(LAYERS.map((name, i) => [name, i]));
    const upward = edges.filter((e) => !rank.has(e.from) || !rank.has(e.to) || rank.get(e.to)! > rank.get(e.from)!);
    expect(upward.map((e) => `${e.file} → ${e.spec}`)).toEqual([]);
  });

  it('finds a cycle when there is one (the detector itself)', () => {
    expect(
      cycleIn([
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c' },
        { from: 'c', to: 'a' },
      ]),
    ).toEqual(['a', 'b', 'c', 'a']);
    expect(
      cycleIn([
        { from: 'a', to: 'b' },
        { from: 'a', to: 'c' },
        { from: 'b', to: 'c' },
      ]),
    ).toBeUndefined();
  });

  it('sees dynamic and type-only imports', () => {
    const text = readFileSync('src/hooks/run.ts', 'utf8');
    expect(text).toContain("import('../db/fast.js')");
    expect(edges.some((e) => e.file === 'src/hooks/run.ts' && e.spec === '../db/fast.js')).toBe(true);
  });
});

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  crowdedNames,
  fileCircles,
  fileEdges,
  findCycle as cycleIn,
  folderEdges,
  LAYERS,
} from '../../scripts/import-graph.mjs';

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

describe('the file import graph of src/', () => {
  it('has no import circles, type-only imports included', () => {
    const edges = fileEdges('src');
    expect(edges.length).toBeGreaterThan(500); // the graph was really read
    expect(fileCircles(edges)).toEqual([]);
  });

  it('finds every circle when there are some (the detector itself)', () => {
    const circles = fileCircles([
      { from: 'a', to: 'b' },
      { from: 'b', to: 'a' },
      { from: 'b', to: 'c' },
      { from: 'c', to: 'd' },
      { from: 'd', to: 'e' },
      { from: 'e', to: 'c' },
      { from: 'e', to: 'f' },
    ]);
    expect(circles).toEqual([
      ['c', 'd', 'e'],
      ['a', 'b'],
    ]);
  });

  it('counts a type-only import as an edge', () => {
    const edges = fileEdges('src');
    const typeOnly = readFileSync('src/agent-types/claude-args.ts', 'utf8');
    expect(typeOnly).toMatch(/import type \{[^}]*\} from '\.\/types\.js'/);
    expect(edges).toContainEqual({ from: 'src/agent-types/claude-args.ts', to: 'src/agent-types/types.ts' });
  });
});

describe('file names in src/', () => {
  it('no name is used by three or more files unless it names the same part in each', () => {
    expect(crowdedNames('src')).toEqual([]);
  });
});

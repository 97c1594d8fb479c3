// The `klaude sessions` table built from rows (sessions-table.ts): cells made safe to print and
// padded by their printed length, every line cut to the terminal at code points.
import { describe, expect, it } from 'vitest';
import { tableLines } from '../../src/commands/sessions/sessions-table.js';
import { shortId } from '../../src/core/ids.js';
import { buildTree } from '../../src/core/tree.js';
import type { SessionListRow } from '../../src/db/repos/listing.js';

const NOW = Date.UTC(2026, 10, 1, 12, 0, 0);

function row(i: number, o: Partial<SessionListRow> = {}): SessionListRow {
  return {
    id: `01JTABLE${String(i).padStart(18, '0')}`,
    projectId: 'p',
    parentId: null,
    type: 'tui',
    runtime: 'claude',
    status: 'idle',
    title: null,
    name: null,
    prompt: `task ${i}`,
    model: null,
    nativeSessionId: null,
    logPath: null,
    lastText: null,
    costUsd: null,
    tokensIn: null,
    tokensOut: null,
    worktreeBranch: null,
    worktreePath: null,
    archivedAt: null,
    createdAt: NOW - 5 * 60_000,
    updatedAt: NOW - 60_000,
    endedAt: null,
    activity: null,
    runStartedAt: null,
    error: null,
    pid: null,
    queuePosition: null,
    rateLimitMax: null,
    rateLimitUntil: null,
    pinnedAt: null,
    queuedFor: null,
    forkedFrom: null,
    sandbox: null,
    zone: null,
    reviewOf: null,
    priority: 0,
    progress: null,
    ...o,
  };
}

const empty = { approvals: new Map(), live: new Map(), reviews: new Map() };
const lines = (rows: SessionListRow[], width = 0): string[] =>
  tableLines(buildTree(rows), empty, { verbose: false, now: NOW, width });

describe('sessions table', () => {
  it('pads plain cells to the widest one and leaves the last column unpadded', () => {
    const out = lines([row(1), row(2, { type: 'coder', prompt: 'write it', lastText: 'done' })]);
    expect(out).toEqual([
      'ID        STATUS  TYPE    RUNTIME  AGE  ACTIVITY  TITLE → LAST MESSAGE',
      `${shortId(row(1).id)}  idle    claude  claude   5m             task 1`,
      `${shortId(row(2).id)}  idle    coder   claude   5m             write it → done`,
    ]);
  });

  it('removes escape sequences and controls from an agent’s cells and pads by what is left', () => {
    const out = lines([
      row(1),
      row(2, {
        status: 'running',
        runStartedAt: NOW - 65_000,
        activity: '\x1b[31mBash\x1b[0m: ls\x07',
        prompt: 'a \x9b2Jprompt',
        lastText: 'said\x1b]0;title\x07 this\r',
      }),
      row(3),
    ]);
    const joined = out.join('\n');
    expect(joined).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(out[2]).toBe(`${shortId(row(2).id)}  running  claude  claude   5m   1m05s Bash: ls  a prompt → said this`);
    // Every row's last column starts where the heading's does: the padding counted the cleaned cell.
    const at = out[0]!.indexOf('TITLE');
    expect(out[1]!.indexOf('task 1')).toBe(at);
    expect(out[2]!.indexOf('a prompt')).toBe(at);
    expect(out[3]!.indexOf('task 3')).toBe(at);
  });

  it('cuts each line to the width at code points, wide and astral titles included', () => {
    const astral = '😀'.repeat(40);
    const wide = '日本語'.repeat(30);
    const out = lines([row(1, { prompt: astral }), row(2, { prompt: wide }), row(3, { prompt: 'x'.repeat(200) })], 60);
    const chars = (s: string): number => [...s].length;
    for (const l of out.slice(1)) expect(chars(l)).toBe(60);
    expect(out[1]!.endsWith('😀😀…')).toBe(true);
    expect(out[1]).not.toMatch(/[\ud800-\udbff]…/); // never half a pair before the ellipsis
    expect(out[2]!.endsWith('本語…')).toBe(true);
    expect(out[3]!.endsWith('xx…')).toBe(true);
    // Code points, not UTF-16 units: the astral row holds more units than the plain one.
    expect(out[1]!.length).toBeGreaterThan(out[3]!.length);
  });
});

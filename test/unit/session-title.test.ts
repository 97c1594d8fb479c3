// What tells rows apart: the person's title before the session's own and the prompt; pins first;
// the title in an `[UPDATE]` line.
import { describe, expect, it } from 'vitest';
import { byPin, cleanName, nameSuffix, shownTitle } from '../../src/core/session-title.js';
import { formatUpdateLine } from '../../src/logs/updates.js';

describe('session titles and pins', () => {
  it('shows the person’s title, else the session’s title, else the prompt', () => {
    expect(shownTitle({ name: 'auth', title: 'RUN: x', prompt: 'RUN: x\nmore' })).toBe('auth');
    expect(shownTitle({ name: null, title: 'RUN: x', prompt: 'RUN: x\nmore' })).toBe('RUN: x');
    expect(shownTitle({ title: null, prompt: 'p' })).toBe('p');
    expect(shownTitle({ title: null, prompt: null })).toBe('');
  });

  it('makes a typed title one line of at most 120 characters', () => {
    expect(cleanName('  auth\n refactor\t ')).toBe('auth refactor');
    expect(cleanName('x'.repeat(300))).toHaveLength(120);
    expect(cleanName('   ')).toBe('');
  });

  it('orders pinned rows first, the earliest pin on top, the rest as given', () => {
    const rows = [{ id: 'a' }, { id: 'b', pinnedAt: 20 }, { id: 'c', pinnedAt: null }, { id: 'd', pinnedAt: 10 }];
    expect([...rows].sort(byPin).map((r) => r.id)).toEqual(['d', 'b', 'a', 'c']);
  });

  it('names a renamed child in its [UPDATE] line', () => {
    const u = {
      id: 1,
      sessionId: '01JXXXXXXXXXXXXXXXX7XQ2ABCD',
      shortId: '7XQ2ABCD',
      agentType: 'coder',
      parentSessionId: '01JYYYYYYYYYYYYYYYYYYYYYYY',
      text: 'tests pass',
      kind: null,
      createdAt: 0,
    };
    expect(formatUpdateLine(u)).toBe('[UPDATE] 7XQ2ABCD (coder): tests pass');
    expect(formatUpdateLine({ ...u, name: 'auth' })).toBe('[UPDATE] 7XQ2ABCD (coder) "auth": tests pass');
    expect(nameSuffix(null)).toBe('');
  });
});

import { describe, expect, it } from 'vitest';
import {
  applyTransition,
  isActive,
  isSessionStatus,
  isTerminal,
  SESSION_STATUSES,
  type SessionStatus,
} from '../../src/core/status.js';

describe('status predicates', () => {
  it.each([
    ['pending', false, false],
    ['running', false, true],
    ['waiting', false, true],
    ['idle', false, false],
    ['done', true, false],
    ['failed', true, false],
    ['interrupted', true, false],
    ['queued', false, false],
    ['cancelled', true, false],
  ] as [SessionStatus, boolean, boolean][])('%s: terminal=%s active=%s', (s, terminal, active) => {
    expect(isTerminal(s)).toBe(terminal);
    expect(isActive(s)).toBe(active);
  });

  it('knows its statuses', () => {
    expect(SESSION_STATUSES).toHaveLength(9);
    expect(isSessionStatus('idle')).toBe(true);
    expect(isSessionStatus('completed')).toBe(false);
    expect(isSessionStatus(3)).toBe(false);
  });
});

// [from, to, allowed without resume, allowed with resume]
const TABLE: [SessionStatus, SessionStatus, boolean, boolean][] = [
  ['pending', 'pending', true, true],
  ['pending', 'running', true, true],
  ['pending', 'failed', true, true],
  ['pending', 'interrupted', true, true],
  ['running', 'waiting', true, true],
  ['waiting', 'running', true, true],
  ['running', 'idle', true, true],
  ['idle', 'running', true, true],
  ['idle', 'waiting', true, true],
  ['running', 'done', true, true],
  ['waiting', 'interrupted', true, true],
  ['idle', 'done', true, true],
  ['running', 'pending', false, false],
  ['idle', 'pending', false, false],
  ['done', 'pending', false, false],
  ['done', 'done', true, true],
  ['done', 'running', false, true],
  ['failed', 'running', false, true],
  ['interrupted', 'running', false, true],
  ['interrupted', 'idle', false, true],
  ['done', 'waiting', false, true],
  ['done', 'failed', false, false],
  ['interrupted', 'done', false, false],
  ['failed', 'interrupted', false, false],
  // The run queue: a new session may be queued; it leaves the queue to start (pending) or cancelled.
  ['pending', 'queued', true, true],
  ['queued', 'pending', true, true],
  ['queued', 'cancelled', true, true],
  ['running', 'queued', false, false],
  ['done', 'queued', false, false],
  ['cancelled', 'running', false, true],
  ['cancelled', 'done', false, false],
];

describe('applyTransition', () => {
  it.each(TABLE)('%s → %s: plain %s, resume %s', (from, to, plain, resume) => {
    const a = applyTransition(from, to);
    const b = applyTransition(from, to, { resume: true });
    expect(a.allowed).toBe(plain);
    expect(b.allowed).toBe(resume);
    if (!a.allowed) expect(a.reason).toMatch(new RegExp(from));
  });

  it('covers every pair without throwing, and never allows going back to pending (but from the queue)', () => {
    for (const from of SESSION_STATUSES) {
      for (const to of SESSION_STATUSES) {
        const r = applyTransition(from, to, { resume: true });
        const queueMove = (from === 'queued' && to === 'pending') || (from === 'pending' && to === 'queued');
        if (to === 'pending' && from !== 'pending') expect(r.allowed).toBe(from === 'queued');
        if (to === 'queued' && from !== 'queued') expect(r.allowed).toBe(from === 'pending');
        if (!isTerminal(from) && to !== 'pending' && to !== 'queued') expect(r.allowed).toBe(true);
        if (queueMove) expect(r.allowed).toBe(true);
      }
    }
  });
});

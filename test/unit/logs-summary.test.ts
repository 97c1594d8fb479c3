import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventInput } from '../../src/core/events.js';
import { collectCompletionInfo, formatSummary } from '../../src/logs/summary.js';

let clock = 0;
const log = (...xs: AgentEventInput[]): AgentEvent[] => xs.map((x) => ({ ts: ++clock, ...x }) as AgentEvent);

describe('collectCompletionInfo', () => {
  it('reads status, files, final text, cost, duration and turns from a finished run', () => {
    const info = collectCompletionInfo(
      log(
        { type: 'init', runtime: 'claude', nativeSessionId: 'c1' },
        { type: 'user', text: 'do it' },
        {
          type: 'tool_call',
          id: 'a',
          name: 'Write',
          summary: 'src/new.ts',
          input: { file_path: '/p/src/new.ts', content: 'x' },
        },
        { type: 'tool_result', id: 'a', isError: false, output: 'ok' },
        { type: 'tool_call', id: 'b', name: 'Edit', summary: 'src/old.ts', input: { file_path: '/p/src/old.ts' } },
        { type: 'tool_result', id: 'b', isError: false, output: 'ok' },
        { type: 'tool_call', id: 'c', name: 'Edit', summary: 'src/new.ts', input: { file_path: '/p/src/new.ts' } },
        { type: 'tool_result', id: 'c', isError: false, output: 'ok' },
        { type: 'tool_call', id: 'd', name: 'Edit', summary: 'src/fail.ts', input: { file_path: '/p/src/fail.ts' } },
        { type: 'tool_result', id: 'd', isError: true, output: 'old_string not found' },
        { type: 'tool_call', id: 'e', name: 'Bash', summary: 'npm test' },
        { type: 'tool_result', id: 'e', isError: false, output: 'ok' },
        { type: 'text', text: '[UPDATE] tests pass' },
        { type: 'update', text: 'tests pass' },
        { type: 'text', text: 'All done.' },
        { type: 'done', status: 'done', finalText: 'All done.', costUsd: 0.05, durationMs: 12_000, numTurns: 4 },
      ),
    );
    expect(info).toEqual({
      status: 'done',
      filesEdited: ['/p/src/old.ts'],
      filesCreated: ['/p/src/new.ts'],
      finalText: 'All done.',
      error: null,
      costUsd: 0.05,
      durationMs: 12_000,
      numTurns: 4,
      updates: ['tests pass'],
      ended: true,
      artifacts: {},
    });
  });

  it('Write over a file edited before counts as edited; the done event lists are merged in', () => {
    const info = collectCompletionInfo(
      log(
        { type: 'tool_call', id: 'a', name: 'Edit', summary: 'a.ts', input: { file_path: 'a.ts' } },
        { type: 'tool_call', id: 'b', name: 'Write', summary: 'a.ts', input: { file_path: 'a.ts' } },
        { type: 'tool_call', id: 'c', name: 'MultiEdit', summary: 'b.ts' },
        { type: 'done', status: 'done', filesEdited: ['c.ts', 'a.ts'], filesCreated: ['d.ts'] },
      ),
    );
    expect(info.filesEdited).toEqual(['a.ts', 'b.ts', 'c.ts']);
    expect(info.filesCreated).toEqual(['d.ts']);
  });

  it('without a done: last status, last text as final text, usage costs summed, last error', () => {
    const info = collectCompletionInfo(
      log(
        { type: 'text', text: 'first' },
        { type: 'usage', costUsd: 0.01 },
        { type: 'text', text: 'second' },
        { type: 'usage', costUsd: 0.02 },
        { type: 'error', message: 'rate limited' },
        { type: 'status', status: 'waiting' },
      ),
    );
    expect(info).toMatchObject({
      status: 'waiting',
      finalText: 'second',
      error: 'rate limited',
      ended: false,
      durationMs: null,
    });
    expect(info.costUsd).toBeCloseTo(0.03);
  });

  it('a failed run carries its error; an empty log is pending; a new turn after done is running', () => {
    expect(collectCompletionInfo(log({ type: 'done', status: 'failed', error: 'max turns reached' }))).toMatchObject({
      status: 'failed',
      error: 'max turns reached',
      finalText: null,
    });
    expect(collectCompletionInfo([])).toMatchObject({ status: 'pending', ended: false, costUsd: null });
    expect(
      collectCompletionInfo(log({ type: 'done', status: 'done' }, { type: 'user', text: 'and now this' })).status,
    ).toBe('running');
  });
});

describe('formatSummary', () => {
  const base = collectCompletionInfo(
    log(
      { type: 'tool_call', id: 'a', name: 'Write', summary: 'x.ts', input: { file_path: 'x.ts' } },
      {
        type: 'done',
        status: 'done',
        finalText: 'Result:\n- one\n- two',
        costUsd: 0.0123,
        durationMs: 41_000,
        numTurns: 6,
      },
    ),
  );

  it('is a short plain block', () => {
    expect(formatSummary(base, { label: 'coder 8HJ2KD0P' })).toBe(
      [
        '── coder 8HJ2KD0P: done · 41s · 6 turns · $0.0123 ──',
        'files edited: none',
        'files created: x.ts',
        'final text:',
        'Result:',
        '- one',
        '- two',
        '',
      ].join('\n'),
    );
    expect(formatSummary(base)).not.toContain('\x1b[');
  });

  it('can leave out the final text, cuts a long one with a hint, and shows errors', () => {
    expect(formatSummary(base, { finalText: false })).not.toContain('final text');
    const long = { ...base, finalText: 'z'.repeat(100) };
    const cut = formatSummary(long, { maxFinalChars: 10, moreHint: 'klaude logs 8HJ2KD0P' });
    expect(cut).toContain(`${'z'.repeat(10)}\n… (cut; full text: klaude logs 8HJ2KD0P)`);
    const failed = formatSummary({ ...base, status: 'failed', error: 'boom\nstack' });
    expect(failed).toContain('error: boom\n');
    expect(failed).not.toContain('stack');
  });

  it('lists many files with a count of the rest', () => {
    const many = { ...base, filesEdited: Array.from({ length: 25 }, (_, i) => `f${i}.ts`) };
    expect(formatSummary(many, { maxFiles: 3 })).toContain('files edited: f0.ts, f1.ts, f2.ts, and 22 more');
  });
});

// What the log pane makes of events, and the text helpers under it.
import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../src/core/events.js';
import { eventLines, LogLayout, wrapLogLines } from '../../src/ui/log/event-lines.js';
import { cellWidth, fit, formatAge, sanitize, truncate, truncateAtWord, wrapLine } from '../../src/ui/text.js';

const ev = (e: Omit<AgentEvent, 'ts'> & Record<string, unknown>): AgentEvent => ({ ts: 0, ...e }) as AgentEvent;
const folded = { expandResults: false };

describe('log pane lines', () => {
  it('shows tool calls with their key argument and folds results to one line', () => {
    expect(eventLines(ev({ type: 'tool_call', id: '1', name: 'Bash', summary: 'npm test' }), folded)).toEqual([
      { text: '→ Bash: npm test', tone: 'tool', indent: 2 },
    ]);
    expect(eventLines(ev({ type: 'tool_result', id: '1', isError: false, output: 'a\nb\nc\n' }), folded)[0]!.text).toBe(
      '  ✓ a (+2 lines)',
    );
    expect(eventLines(ev({ type: 'tool_result', id: '1', isError: true, output: 'boom' }), folded)[0]).toMatchObject({
      text: '  ✗ boom',
      tone: 'resultError',
    });
    expect(eventLines(ev({ type: 'tool_result', id: '1', isError: false, output: '' }), folded)[0]!.text).toBe(
      '  ✓ (no output)',
    );
    const open = eventLines(ev({ type: 'tool_result', id: '1', isError: false, output: 'a\nb' }), {
      expandResults: true,
    });
    expect(open.map((l) => l.text)).toEqual(['  ✓ 2 lines', '    a', '    b']);
  });

  it('highlights [UPDATE] lines, shows an update event once after its text, strips escape sequences', () => {
    const text = eventLines(ev({ type: 'text', text: 'working\n[UPDATE] half done' }), folded);
    expect(text.map((l) => l.tone)).toEqual(['text', 'update']);
    const layout = new LogLayout();
    const lines = layout.lines(
      [
        ev({ type: 'text', text: 'x\n[UPDATE] half done' }),
        ev({ type: 'update', text: 'half done' }),
        ev({ type: 'update', text: 'other' }),
      ],
      80,
      folded,
    );
    expect(lines.map((l) => l.text)).toEqual(['x', '[UPDATE] half done', '[UPDATE] other']);
    expect(
      eventLines(ev({ type: 'text', text: 'red \x1b[31mtext\x1b[0m\x07 and \x1b]0;title\x07ok' }), folded)[0]!.text,
    ).toBe('red text and ok');
  });

  it('summarises the end of a run', () => {
    const done = eventLines(
      ev({ type: 'done', status: 'done', durationMs: 95_000, numTurns: 3, costUsd: 0.0213, filesEdited: ['a.ts'] }),
      folded,
    );
    expect(done.map((l) => l.text)).toEqual(['■ done · 1m35s · 3 turns · $0.0213', '   edited a.ts']);
    expect(eventLines(ev({ type: 'done', status: 'failed', error: 'quota' }), folded).map((l) => l.tone)).toEqual([
      'error',
      'error',
    ]);
    expect(eventLines(ev({ type: 'usage', inputTokens: 5 }), folded)).toEqual([]);
    // A run's start is no news (its prompt follows); a status with a reason is.
    expect(eventLines(ev({ type: 'status', status: 'running' }), folded)).toEqual([]);
    expect(eventLines(ev({ type: 'status', status: 'interrupted', reason: 'by you' }), folded)[0]!.text).toBe(
      '· interrupted (by you)',
    );
  });

  it('wraps to the pane width, indenting continuations', () => {
    const w = wrapLogLines([{ text: '→ Bash: one two three four five six', tone: 'tool', indent: 2 }], 16);
    expect(w.map((l) => l.text)).toEqual(['→ Bash: one two', '  three four', '  five six']);
    expect(w.every((l) => cellWidth(l.text) <= 16)).toBe(true);
  });
});

describe('text', () => {
  it('measures wide characters and emoji as two cells', () => {
    expect(cellWidth('abc')).toBe(3);
    expect(cellWidth('日本')).toBe(4);
    expect(cellWidth('✓ ok')).toBe(4);
    expect(cellWidth('🙂')).toBe(2);
  });

  it('truncates and fits to cells, wraps words and hard-breaks long ones', () => {
    expect(truncate('abcdef', 4)).toBe('abc…');
    expect(truncate('日本語', 4)).toBe('日…');
    expect(fit('ab', 4)).toBe('ab  ');
    expect(wrapLine('aaa bbb ccc', 7)).toEqual(['aaa bbb', 'ccc']);
    expect(wrapLine('abcdefghij', 4)).toEqual(['abcd', 'efgh', 'ij']);
    expect(sanitize('a\tb\r\nc')).toBe('a  b\nc');
  });

  it('cuts a title at the end of a word where that costs little', () => {
    expect(truncateAtWord('Run the whole suite and list the flaky tests', 23)).toBe('Run the whole suite…');
    expect(truncateAtWord('Fix the flaky login test', 24)).toBe('Fix the flaky login test');
    expect(truncateAtWord('Fix the flaky login test', 16)).toBe('Fix the flaky…');
    // A word cut right at its end keeps it; one long word is cut as before.
    expect(truncateAtWord('Fix the flaky login test', 20)).toBe('Fix the flaky login…');
    expect(truncateAtWord('Supercalifragilistic', 10)).toBe('Supercali…');
    // Backing up would lose much of a long word: cut in it instead.
    expect(truncateAtWord('Regenerate the migrations', 24)).toBe('Regenerate the migratio…');
    // Never back past `keep` cells (the " · " before a row's title).
    expect(truncateAtWord(' · Regenerate', 8, 3)).toBe(' · Rege…');
  });

  it('formats ages compactly', () => {
    expect(formatAge(5_000)).toBe('5s');
    expect(formatAge(12 * 60_000)).toBe('12m');
    expect(formatAge(3 * 3_600_000)).toBe('3h');
    expect(formatAge(72 * 3_600_000)).toBe('3d');
  });
});

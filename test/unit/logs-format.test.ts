import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventInput } from '../../src/core/events.js';
import {
  createFormatter,
  formatDuration,
  formatEvent,
  formatEvents,
  formatOptionsFor,
  formatTime,
  shouldColor,
  truncate,
} from '../../src/logs/format.js';

const TS = new Date(2026, 0, 2, 9, 5, 7).getTime(); // local 09:05:07
const e = (x: AgentEventInput): AgentEvent => ({ ts: TS, ...x }) as AgentEvent;
const ESC = '\x1b[';

describe('formatEvent (plain)', () => {
  it.each<[string, AgentEvent, string | null]>([
    ['assistant text as is', e({ type: 'text', text: 'Hello.\n\nSecond paragraph.\n' }), 'Hello.\n\nSecond paragraph.'],
    ['empty text shows nothing', e({ type: 'text', text: '  \n' }), null],
    [
      'tool call with key argument',
      e({ type: 'tool_call', id: 't1', name: 'Bash', summary: 'npm test' }),
      '→ Bash: npm test',
    ],
    ['tool call without argument', e({ type: 'tool_call', id: 't1', name: 'TodoWrite', summary: '' }), '→ TodoWrite'],
    [
      'multi-line argument: first line',
      e({ type: 'tool_call', id: 't1', name: 'Bash', summary: 'set -e\nnpm ci\nnpm test' }),
      '→ Bash: set -e …',
    ],
    [
      'result folded to a line count',
      e({ type: 'tool_result', id: 't1', isError: false, output: 'a\nb\nc\n' }),
      '  ✓ 3 lines',
    ],
    ['one line', e({ type: 'tool_result', id: 't1', isError: false, output: 'ok' }), '  ✓ 1 line'],
    ['no output', e({ type: 'tool_result', id: 't1', isError: false, output: '' }), '  ✓ no output'],
    [
      'error: first non-empty line',
      e({ type: 'tool_result', id: 't1', isError: true, output: '\nsh: foo: command not found\nmore' }),
      '  ✗ error: sh: foo: command not found',
    ],
    ['error without output', e({ type: 'tool_result', id: 't1', isError: true, output: '' }), '  ✗ error'],
    ['update marked', e({ type: 'update', text: 'tests pass' }), '[UPDATE] tests pass'],
    ['prompt', e({ type: 'user', text: 'fix the test\nplease' }), '> fix the test\n> please'],
    [
      'init',
      e({ type: 'init', runtime: 'claude', nativeSessionId: 'abc-123', model: 'sonnet' }),
      '· claude · sonnet · session abc-123',
    ],
    ['usage hidden', e({ type: 'usage', inputTokens: 5, costUsd: 0.1 }), null],
    ['running status hidden', e({ type: 'status', status: 'running' }), null],
    [
      'waiting status shown',
      e({ type: 'status', status: 'waiting', reason: 'permission prompt' }),
      '· waiting: permission prompt',
    ],
    ['error event', e({ type: 'error', message: 'API error 529\ndetails' }), '✗ error: API error 529 …'],
    [
      'done with stats',
      e({ type: 'done', status: 'done', durationMs: 41_000, numTurns: 6, costUsd: 0.01234 }),
      '■ done · 41s · 6 turns · $0.0123',
    ],
    ['failed with error', e({ type: 'done', status: 'failed', error: 'max turns' }), '■ failed: max turns'],
    ['unknown event types are skipped', { type: 'from_the_future', ts: TS } as unknown as AgentEvent, null],
  ])('%s', (_name, event, expected) => {
    expect(formatEvent(event)).toBe(expected);
  });

  it('truncates one-line items to the width (default 160)', () => {
    const long = 'x'.repeat(300);
    const line = formatEvent(e({ type: 'tool_call', id: 't', name: 'Bash', summary: long }))!;
    expect([...line]).toHaveLength(160);
    expect(line.endsWith('…')).toBe(true);
    const narrow = formatEvent(e({ type: 'tool_call', id: 't', name: 'Bash', summary: long }), { width: 40 })!;
    expect([...narrow]).toHaveLength(40);
    // assistant text is never cut
    expect(formatEvent(e({ type: 'text', text: long }), { width: 40 })).toBe(long);
  });

  it('hides prompts and the init line on request', () => {
    expect(formatEvent(e({ type: 'user', text: 'x' }), { showUser: false })).toBeNull();
    expect(formatEvent(e({ type: 'init', runtime: 'claude', nativeSessionId: 'a' }), { showInit: false })).toBeNull();
  });

  it('caps long prompts', () => {
    const text = Array.from({ length: 10 }, (_, i) => `line ${i}`).join('\n');
    const out = formatEvent(e({ type: 'user', text }))!.split('\n');
    expect(out).toHaveLength(7);
    expect(out[6]).toBe('> … (4 more lines)');
  });
});

describe('timestamps', () => {
  it('prefix the first line of each item; continuation lines are aligned', () => {
    const opts = { timestamps: true };
    expect(formatTime(TS)).toBe('09:05:07');
    expect(formatEvent(e({ type: 'tool_call', id: 't', name: 'Read', summary: 'a.ts' }), opts)).toBe(
      '09:05:07 → Read: a.ts',
    );
    expect(formatEvent(e({ type: 'text', text: 'one\ntwo' }), opts)).toBe('09:05:07 one\n         two');
  });
});

describe('[UPDATE] lines', () => {
  it('an update event repeating a line of the text just shown is not printed twice', () => {
    const f = createFormatter();
    expect(f.format(e({ type: 'text', text: 'Working.\n[UPDATE] halfway there' }))).toBe(
      'Working.\n[UPDATE] halfway there',
    );
    expect(f.format(e({ type: 'update', text: 'halfway there' }))).toBeNull();
    expect(f.format(e({ type: 'update', text: 'something else' }))).toBe('[UPDATE] something else');
  });

  it('are highlighted when colour is on', () => {
    const out = formatEvent(e({ type: 'text', text: 'a\n[UPDATE] b' }), { color: true })!;
    const [plain, marked] = out.split('\n');
    expect(plain).toBe('a');
    expect(marked).toContain(ESC);
    expect(marked).toContain('[UPDATE] b');
  });
});

describe('colour', () => {
  it('plain output has no ANSI codes at all', () => {
    const events: AgentEvent[] = [
      e({ type: 'text', text: 'hi\n[UPDATE] x' }),
      e({ type: 'tool_call', id: 't', name: 'Bash', summary: 'ls' }),
      e({ type: 'tool_result', id: 't', isError: true, output: 'no' }),
      e({ type: 'done', status: 'failed' }),
    ];
    expect(formatEvents(events, { color: false, timestamps: true })).not.toContain(ESC);
    expect(formatEvents(events, { color: true })).toContain(ESC);
  });

  it.each<[string, { isTTY?: boolean }, NodeJS.ProcessEnv, boolean]>([
    ['TTY', { isTTY: true }, {}, true],
    ['not a TTY', { isTTY: false }, {}, false],
    ['NO_COLOR on a TTY', { isTTY: true }, { NO_COLOR: '1' }, false],
    ['empty NO_COLOR is ignored', { isTTY: true }, { NO_COLOR: '' }, true],
    ['FORCE_COLOR without TTY', {}, { FORCE_COLOR: '1' }, true],
    ['NO_COLOR beats FORCE_COLOR', { isTTY: true }, { NO_COLOR: '1', FORCE_COLOR: '1' }, false],
    ['TERM=dumb', { isTTY: true }, { TERM: 'dumb' }, false],
  ])('shouldColor: %s', (_n, out, env, expected) => {
    expect(shouldColor(out, env)).toBe(expected);
  });

  it('formatOptionsFor takes the terminal width on a TTY, 160 otherwise', () => {
    expect(formatOptionsFor({ isTTY: true, columns: 90 }, {})).toMatchObject({ width: 90, color: true });
    expect(formatOptionsFor({ isTTY: false, columns: 90 }, {}, { timestamps: true })).toMatchObject({
      width: 160,
      color: false,
      timestamps: true,
    });
  });
});

describe('helpers', () => {
  it.each([
    ['short', 10, 'short'],
    ['exactly10!', 10, 'exactly10!'],
    ['this is too long', 10, 'this is t…'],
    ['日本語テキストです', 5, '日本語テ…'],
  ])('truncate(%j, %i)', (s, n, out) => {
    expect(truncate(s, n)).toBe(out);
  });

  it('truncate counts code points as spreading the string does (pairs, lone surrogates, short widths)', () => {
    const bySpread = (s: string, max: number): string => {
      const chars = [...s];
      if (chars.length <= max) return s;
      return max <= 1 ? '…'.slice(0, max) : `${chars.slice(0, max - 1).join('')}…`;
    };
    const parts = ['a', 'é', '😀', '\ud800', '\udc00', '日', ' ', 'xyz'];
    let seed = 1;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let k = 0; k < 20_000; k++) {
      let s = '';
      for (let i = Math.floor(rnd() * 12); i > 0; i--) s += parts[Math.floor(rnd() * parts.length)];
      const max = Math.floor(rnd() * 10);
      expect(truncate(s, max)).toBe(bySpread(s, max));
    }
  });

  it.each([
    [450, '450ms'],
    [4_200, '4.2s'],
    [41_000, '41s'],
    [125_000, '2m5s'],
    [3_600_000 * 2 + 60_000 * 3, '2h3m'],
  ])('formatDuration(%i) = %s', (ms, out) => {
    expect(formatDuration(ms)).toBe(out);
  });
});

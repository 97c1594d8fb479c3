import { describe, expect, it } from 'vitest';
import {
  jsonNeedsNoSanitising,
  jsonControlsEscaped,
  safeJson,
  safeText,
  TextSanitizer,
  visibleControls,
} from '../../src/lib/escapes.js';
import type { AgentEvent } from '../../src/core/events.js';
import { table } from '../../src/lib/format.js';
import { createFormatter } from '../../src/logs/format.js';
import { createStreamPrinter } from '../../src/logs/stream-print.js';
import { collectCompletionInfo, formatSummary } from '../../src/logs/summary.js';
import { formatUpdateLine, type UpdateView } from '../../src/logs/updates.js';

const OSC52_BEL = '\x1b]52;c;cm0gLXJmIH4=\x07';
const OSC52_ST = '\x1b]52;c;cm0gLXJmIH4=\x1b\\';
/** No ESC, no C1, no C0 but \n and \t. */
const SAFE = /^[^\x00-\x08\x0b-\x1f\x7f-\x9f]*$/;

describe('safeText', () => {
  it.each<[string, string, string]>([
    ['OSC 52, BEL-terminated', `copy${OSC52_BEL} this`, 'copy this'],
    ['OSC 52, ST-terminated', `copy${OSC52_ST} this`, 'copy this'],
    ['OSC 0 (title)', 'a\x1b]0;pwned\x07b', 'ab'],
    ['OSC 8 hyperlink', '\x1b]8;;https://evil\x1b\\click\x1b]8;;\x1b\\', 'click'],
    ['8-bit OSC ended by 8-bit ST', 'a\x9d52;c;eA==\x9cb', 'ab'],
    ['8-bit OSC ended by BEL', 'a\x9d0;title\x07b', 'ab'],
    ['8-bit CSI', 'a\x9b2Jb', 'ab'],
    ['other C1 controls', 'a\x85\x8d\x84b', 'ab'],
    ['CSI cursor moves and erase', 'shown\x1b[1A\x1b[2K\x1b[10;5Hhidden?', 'shownhidden?'],
    ['CSI with private parameters', 'a\x1b[?1049hb\x1b[?25lc', 'abc'],
    ['DCS, APC, PM, SOS', 'a\x1bPq#0;2;0;0;0\x1b\\b\x1b_apc\x1b\\c\x1b^pm\x1b\\d\x1bXsos\x1b\\e', 'abcde'],
    ['two-byte ESC sequences (reset, save cursor, charset)', 'a\x1bcb\x1b7c\x1b(Bd', 'abcd'],
    ['kept: newlines and tabs', 'one\n\ttwo\n', 'one\n\ttwo\n'],
    ['CR becomes a newline, CRLF one newline', 'a\rb\r\nc', 'a\nb\nc'],
    ['a final CR', 'a\r', 'a\n'],
    ['backspace, bell, DEL, NUL', 'a\bb\x07c\x7fd\x00e', 'abcde'],
    ['an unterminated OSC swallows only its line', 'x\x1b]0;title\nnext line', 'x\nnext line'],
    ['an unterminated CSI ends at a control', 'x\x1b[12\ny', 'x\ny'],
    ['ESC before a non-ASCII character', 'a\x1bé', 'aé'],
    ['ESC inside OSC starts a new sequence', 'a\x1b]0;t\x1b[31mb', 'ab'],
    ['a lone final ESC', 'end\x1b', 'end'],
    ['wide text and emoji kept', '日本語 ✓ 🎉', '日本語 ✓ 🎉'],
  ])('%s', (_name, input, expected) => {
    expect(safeText(input)).toBe(expected);
  });

  it('returns the same string when nothing needs it', () => {
    const s = 'plain text\nwith\ttabs';
    expect(safeText(s)).toBe(s);
  });

  it('also removes SGR: agent colours are not klaude colours', () => {
    expect(safeText('\x1b[31mred\x1b[0m')).toBe('red');
  });

  it('leaves nothing a terminal acts on, whatever the input', () => {
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = [
      '\x1b',
      '[',
      ']',
      '\\',
      '\x07',
      '\x9b',
      '\x9c',
      '\x9d',
      '\r',
      '\n',
      'P',
      '_',
      'a',
      ';',
      '5',
      '\x90',
    ];
    for (let n = 0; n < 500; n++) {
      let s = '';
      for (let i = 0; i < 30; i++) s += alphabet[Math.floor(rnd() * alphabet.length)]!;
      expect(safeText(s)).toMatch(SAFE);
    }
  });
});

describe('jsonNeedsNoSanitising', () => {
  const check = (json: string): boolean => jsonNeedsNoSanitising(json, Buffer.from(json, 'utf8'));
  const spellings = (c: number): string[] => {
    const ch = String.fromCharCode(c);
    const hex = c.toString(16).padStart(4, '0');
    // as JSON.stringify writes it, raw, and as \u escapes in both cases
    return [
      JSON.stringify({ t: `a${ch}b` }),
      `{"t":"a${ch}b"}`,
      `{"t":"a\\u${hex}b"}`,
      `{"t":"a\\u${hex.toUpperCase()}b"}`,
    ];
  };

  it('says no for every character the sanitiser acts on, however the JSON spells it', () => {
    for (let c = 0; c <= 0x9f; c++) {
      const ch = String.fromCharCode(c);
      if (safeText(`a${ch}b`) === `a${ch}b`) continue;
      for (const json of spellings(c)) {
        let parsed: unknown;
        try {
          parsed = JSON.parse(json);
        } catch {
          continue; // a raw C0 character: not JSON, so never an event
        }
        expect(safeText((parsed as { t: string }).t), json).not.toBe((parsed as { t: string }).t);
        expect(check(json), json).toBe(false);
      }
    }
  });

  it('says yes for text that needs nothing, newlines, tabs, quotes and non-ASCII included', () => {
    const json = JSON.stringify({ ts: 1, type: 'text', text: 'line\n\tindented "quoted" \\ é ü 漢字 🎉 \u00e9 ¿¡' });
    expect(safeText(JSON.parse(json).text)).toBe(JSON.parse(json).text);
    expect(check(json)).toBe(true);
    expect(check(`{"t":"\\u00e9 \\u0041"}`)).toBe(true);
  });

  it('an escaped backslash before b, f, r or u001b is text, not an escape', () => {
    const json = JSON.stringify({ t: 'C:\\bin\\run \\u001b \\r\\f' });
    expect(safeText(JSON.parse(json).t)).toBe(JSON.parse(json).t);
    expect(check(json)).toBe(true);
    expect(check(JSON.stringify({ t: 'C:\\bin\\\r' }))).toBe(false); // an escaped backslash, then a CR
  });
});

describe('TextSanitizer (pieces)', () => {
  it('removes a sequence split between pieces whole, as one string would', () => {
    const whole = `before ${OSC52_BEL} after\r\nnext \x1b[2Jend`;
    for (let cut = 0; cut <= whole.length; cut++) {
      for (const cut2 of [cut, Math.min(whole.length, cut + 3)]) {
        const t = new TextSanitizer();
        const got = t.push(whole.slice(0, cut)) + t.push(whole.slice(cut, cut2)) + t.push(whole.slice(cut2)) + t.end();
        expect(got).toBe(safeText(whole));
      }
    }
    expect(safeText(whole)).toBe('before  after\nnext end');
  });
});

describe('visibleControls', () => {
  it('shows controls as less does, keeping newlines, tabs and CRLF', () => {
    expect(visibleControls(`a${OSC52_BEL}b`)).toBe('a^[]52;c;cm0gLXJmIH4=^Gb');
    expect(visibleControls('x\x9b2Jy\x7f')).toBe('x<9B>2Jy^?');
    expect(visibleControls('line\r\n\tnext\rover')).toBe('line\r\n\tnext^Mover');
  });
});

describe('safeJson', () => {
  it('escapes DEL and C1 characters JSON.stringify leaves raw; the value is the same', () => {
    const value = { text: `a${OSC52_BEL}\x9d0;t\x9c\x7f\n` };
    expect(JSON.stringify(value)).toMatch(/[\x7f-\x9f]/); // what it guards against
    const out = safeJson(value);
    expect(out).toMatch(SAFE);
    expect(out).not.toContain('\x1b');
    expect(JSON.parse(out)).toEqual(value);
    expect(JSON.parse(safeJson(value, 2))).toEqual(value);
  });

  it('a log line as written (a raw --raw line) keeps its value', () => {
    const line = JSON.stringify({ type: 'text', text: 'x\x9b2J\x9d52;c;eA==\x07' });
    const out = jsonControlsEscaped(line);
    expect(out).toMatch(SAFE);
    expect(JSON.parse(out)).toEqual(JSON.parse(line));
  });
});

describe('the log formatter and stream printer', () => {
  const TS = 1_700_000_000_000;
  const ev = (x: Record<string, unknown>): AgentEvent => ({ ts: TS, ...x }) as unknown as AgentEvent;

  it("strips the agent's sequences and keeps klaude's colours", () => {
    const f = createFormatter({ color: true });
    const upd = f.format(ev({ type: 'text', text: `hi${OSC52_BEL}\n[UPDATE] done\x1b]0;pwned\x07 ok` }))!;
    expect(upd).not.toContain('\x1b]');
    expect(upd).toContain('hi\n');
    // klaude's own SGR around the [UPDATE] line survives.
    expect(upd).toContain('\x1b[33m\x1b[1m[UPDATE] done ok\x1b[22m\x1b[39m');
    const call = f.format(ev({ type: 'tool_call', id: 't', name: 'Bash', summary: 'echo \x1b]0;t\x07x\x9b2J' }))!;
    expect(call).toBe('\x1b[36m→ Bash: echo x\x1b[39m');
    const err = f.format(
      ev({ type: 'tool_result', id: 't', isError: true, output: `\x1b[31mboom${OSC52_ST}\x1b[0m` }),
    )!;
    expect(err).toBe('\x1b[31m  ✗ error: boom\x1b[39m');
  });

  it.each<[string, Record<string, unknown>]>([
    ['user', { type: 'user', text: `do it${OSC52_BEL}` }],
    ['update', { type: 'update', text: `note${OSC52_BEL}` }],
    ['status', { type: 'status', status: 'failed', reason: `r${OSC52_BEL}` }],
    ['error', { type: 'error', message: `m${OSC52_BEL}` }],
    ['artifact', { type: 'artifact', name: `n${OSC52_BEL}`, text: `t${OSC52_BEL}` }],
    ['recovered', { type: 'recovered', cause: `c${OSC52_BEL}`, mode: 'auto' }],
    ['approval_request', { type: 'approval_request', requestId: 'r', tool: 'Bash', summary: `s${OSC52_BEL}` }],
    ['approval_answer', { type: 'approval_answer', requestId: 'r', behavior: 'deny', message: `m${OSC52_BEL}` }],
    ['done', { type: 'done', status: 'failed', error: `e${OSC52_BEL}` }],
    ['retry', { type: 'retry', attempt: 1, reason: `x${OSC52_BEL}`, kind: 'server' }],
  ])('%s: no escape of the agent reaches the output', (_n, x) => {
    const out = createFormatter({ color: false }).format(ev(x))!;
    expect(out).not.toBeNull();
    expect(out).not.toContain('\x1b');
    expect(out).toMatch(SAFE);
  });

  it('streams text whose escape sequence is split between deltas, and the whole text adds only its newline', () => {
    const p = createStreamPrinter(createFormatter({ color: false }));
    let out = '';
    for (const piece of ['copied', ' \x1b]52;c;', 'cm0gLXJmIH4=\x07', ' here', '\x1b[2', 'J. done'])
      out += p.print(ev({ type: 'text_delta', text: piece }));
    out += p.print(ev({ type: 'text', text: `copied ${OSC52_BEL} here\x1b[2J. done` }));
    out += p.finish();
    expect(out).toBe('copied  here. done\n');
  });

  it('thinking pieces are made safe too', () => {
    const p = createStreamPrinter(createFormatter({ color: false }));
    const out = p.print(ev({ type: 'thinking_delta', text: `hmm\x1b]0;t\x07` })) + p.finish();
    expect(out).toBe('∴ hmm\n');
  });

  it('summaries, update lines and tables are made safe', () => {
    const info = collectCompletionInfo([
      ev({ type: 'text', text: `final${OSC52_BEL} words` }),
      ev({ type: 'artifact', name: 'review', text: `ok\x1b]0;t\x07` }),
      ev({ type: 'done', status: 'failed', error: `bad\x9b2J`, filesCreated: ['\x1b]0;x\x07evil.txt'] }),
    ]);
    const s = formatSummary(info, { label: 'agent X' });
    expect(s).toMatch(SAFE);
    expect(s).toContain('final text:\nfinal words');
    expect(s).toContain('files created: evil.txt');
    const line = formatUpdateLine({
      id: 1,
      sessionId: 's',
      shortId: 'S',
      agentType: 't',
      text: `x${OSC52_BEL}`,
      kind: null,
      createdAt: 0,
    } as UpdateView);
    expect(line).toBe('[UPDATE] S (t): x');
    expect(
      table([
        ['A', 'B'],
        [`a${OSC52_BEL}`, 'b\x1b[1A'],
      ]),
    ).toBe('A  B\na  b\n');
  });
});

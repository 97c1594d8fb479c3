// The quick path for a frame's lines (src/ui/render/plain-line.ts) against string-width: every
// code point it counts as one column is one column to string-width too, alone and between others,
// and a line it accepts measures what string-width measures.
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { NARROW, plainLine } from '../../src/ui/render/plain-line.js';

describe('plain lines', () => {
  it('counts as one column only what string-width counts as one', () => {
    const wrong: string[] = [];
    for (let i = 0; i < NARROW.length; i += 2) {
      for (let c = NARROW[i]!; c <= NARROW[i + 1]!; c++) {
        const ch = String.fromCodePoint(c);
        if (stringWidth(ch) !== 1 || stringWidth(`a${ch}b`) !== 3) wrong.push(c.toString(16));
        expect(plainLine(`a${ch}b`)?.width).toBe(3);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('leaves wide, combining, zero-width and control characters to string-width', () => {
    for (const s of [
      '日本',
      'e\u0301',
      '👍🏽',
      '\u200b',
      'a\tb',
      '\u00ad',
      '✅',
      '◽',
      'a\u001b]8;;x\u0007b',
      '\u001b[?25l',
      '\u001b[4:3m',
    ]) {
      expect(plainLine(s), JSON.stringify(s)).toBeNull();
    }
  });

  it('measures styled lines as string-width does and knows what they leave set', () => {
    const lines: Array<[string, boolean]> = [
      ['\u001b[2m  \u001b[22m\u001b[32m✓\u001b[39m \u001b[1magent-8\u001b[22m  KZW3C2AF', false],
      ['\u001b[7m\u001b[1m● agent-9 · 5s writ…', true],
      ['\u001b[38;5;208m─────\u001b[39m│', false],
      ['\u001b[38;2;10;200;30m╭─ log\u001b[0m', false],
      ['\u001b[44mbar', true],
      ['\u001b[4;31munder\u001b[24m', true],
      ['\u001b[mplain', false],
    ];
    for (const [line, open] of lines) {
      expect(plainLine(line)).toMatchObject({ width: stringWidth(line), open });
    }
    // An SGR code it does not know, or a colour without its arguments, takes the general path.
    expect(plainLine('\u001b[73mx')).toBeNull();
    expect(plainLine('\u001b[38;5mx')).toBeNull();
  });

  it('marks where a row ending with the line may be cut: after the last cell that is not an unstyled blank', () => {
    expect(plainLine('ab  ')).toMatchObject({ tail: 2, tailOpen: false });
    expect(plainLine(' \u001b[24m')).toMatchObject({ tail: 0 });
    expect(plainLine('\u001b[7m  \u001b[27m')).toMatchObject({ tail: 6, tailOpen: true });
    expect(plainLine('ok\u001b[31m   ')).toMatchObject({ tail: 10, tailOpen: true });
  });
});

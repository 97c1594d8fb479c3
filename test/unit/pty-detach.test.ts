// The detach matcher of `klaude talk`: the detach key alone detaches; inside escape sequences,
// terminal replies or a bracketed paste it does not; the typed line ///detach + Enter detaches (and
// is erased), a pasted one does not; everything else passes through byte for byte, however split.
import { describe, expect, it } from 'vitest';
import { DETACH_KEYS } from '../../src/config/schema.js';
import { DetachMatcher, parseDetachKey } from '../../src/pty/detach.js';

const CTRL_RB = parseDetachKey('ctrl-]')!;
const matcher = (line?: string | null) => new DetachMatcher({ key: CTRL_RB, line });

/** Feed chunks; return what was forwarded and whether/how it detached. */
function feed(
  m: DetachMatcher,
  chunks: (string | Buffer)[],
): { out: string; detach: boolean; by?: string; at: number } {
  let out = '';
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!;
    const r = m.push(Buffer.isBuffer(c) ? c : Buffer.from(c, 'latin1'));
    out += r.forward.toString('latin1');
    if (r.detach) return { out, detach: true, by: r.by, at: i };
  }
  return { out, detach: false, at: -1 };
}

describe('parseDetachKey', () => {
  it('maps every configurable key to its control byte', () => {
    expect(CTRL_RB).toEqual({ byte: 0x1d, codepoint: 93, label: 'Ctrl-]' });
    expect(parseDetachKey('ctrl-a')).toEqual({ byte: 0x01, codepoint: 97, label: 'Ctrl-A' });
    expect(parseDetachKey('ctrl-\\')).toMatchObject({ byte: 0x1c });
    expect(parseDetachKey('ctrl-^')).toMatchObject({ byte: 0x1e });
    expect(parseDetachKey('ctrl-_')).toMatchObject({ byte: 0x1f });
    expect(parseDetachKey('none')).toBeNull();
    for (const k of DETACH_KEYS) {
      const key = parseDetachKey(k);
      if (key) expect([0x03, 0x08, 0x09, 0x0a, 0x0d]).not.toContain(key.byte);
    }
    expect(() => parseDetachKey('ctrl-c')).toThrow();
  });
});

describe('DetachMatcher: the key', () => {
  it.each([
    ['alone', ['\x1d'], ''],
    ['after typed text in the same read', ['abc\x1d'], 'abc'],
    ['in a later read', ['ab', 'c', '\x1d'], 'abc'],
    ['with bytes after it (dropped)', ['x\x1dyz'], 'x'],
    ['as kitty CSI-u', ['\x1b[93;5u'], ''],
    ['as kitty CSI-u with num lock', ['\x1b[93;133u'], ''],
    ['as modifyOtherKeys', ['\x1b[27;5;93~'], ''],
    ['right after a lone Escape', ['\x1b', '\x1d'], '\x1b'],
  ])('detaches: %s', (_name, chunks, forwarded) => {
    const r = feed(matcher(), chunks);
    expect(r).toMatchObject({ detach: true, by: 'key', out: forwarded });
  });

  it.each([
    ['inside a CSI sequence', ['\x1b[1;\x1d5A']],
    ['inside an OSC reply (BEL)', ['\x1b]11;rgb:0000/\x1d/0000\x07']],
    ['inside an OSC reply split across reads (ST)', ['\x1b]11;rgb:00', '\x1d00/0000/0000\x1b\\']],
    ['inside a DCS string', ['\x1bP>|xterm\x1d\x1b\\']],
    ['inside a bracketed paste', ['\x1b[200~abc\x1ddef\x1b[201~']],
    ['inside a bracketed paste split across reads', ['\x1b[20', '0~ab', 'c\x1d', 'd\x1b[2', '01~']],
    ['as a kitty key release', ['\x1b[93;5:3u']],
    ['as kitty with another modifier (Ctrl-Alt)', ['\x1b[93;7u']],
    ['as another kitty key', ['\x1b[94;5u']],
  ])('passes through: %s', (_name, chunks) => {
    const r = feed(matcher(), chunks);
    expect(r.detach).toBe(false);
    expect(r.out).toBe(chunks.join(''));
  });

  it('works again after a paste ended', () => {
    const m = matcher();
    expect(feed(m, ['\x1b[200~pasted\x1d\x1b[201~']).detach).toBe(false);
    expect(feed(m, ['\x1d'])).toMatchObject({ detach: true });
  });

  it('Ctrl-Z detaches (as suspend) only when asked to', () => {
    expect(feed(new DetachMatcher({ key: CTRL_RB, suspendDetaches: true }), ['ab\x1a'])).toMatchObject({
      detach: true,
      by: 'suspend',
      out: 'ab',
    });
    expect(feed(new DetachMatcher({ key: CTRL_RB, suspendDetaches: true }), ['\x1b[122;5u'])).toMatchObject({
      detach: true,
      by: 'suspend',
    });
    expect(feed(new DetachMatcher({ key: CTRL_RB, suspendDetaches: true }), ['\x1b[200~\x1a\x1b[201~']).detach).toBe(
      false,
    );
    expect(feed(matcher(), ['\x1a'])).toMatchObject({ detach: false, out: '\x1a' });
  });

  it('never detaches with key none', () => {
    const m = new DetachMatcher({ key: null });
    expect(feed(m, ['\x1d', '\x1b[93;5u']).detach).toBe(false);
  });

  it('holds a CSI split across reads until its final byte, then passes it whole', () => {
    const m = matcher();
    expect(m.push(Buffer.from('\x1b[1;')).forward.toString()).toBe('');
    expect(m.push(Buffer.from('5A')).forward.toString()).toBe('\x1b[1;5A');
  });

  it('passes a lone Escape at once', () => {
    expect(matcher().push(Buffer.from('\x1b')).forward.toString()).toBe('\x1b');
  });

  it('passes UTF-8 and every other control key through unchanged', () => {
    const text = Buffer.from('héllo ✓ \x03\x04\x1a\x7f\t\r', 'utf8');
    const r = matcher().push(text);
    expect(r.detach).toBe(false);
    expect(r.forward.equals(text)).toBe(true);
  });
});

describe('DetachMatcher: the typed line ///detach', () => {
  const DELS = '\x7f'.repeat(9);

  it.each([
    ['typed key by key, Enter alone', [...'///detach', '\r']],
    ['typed in one read, Enter alone', ['///detach', '\r']],
    ['after a previous line', ['hello', '\r', '///detach', '\r']],
    ['with a typo fixed by backspace', ['///detx', '\x7f', 'ach', '\r']],
    ['after Ctrl-U cleared the line', ['some text', '\x15', '///detach', '\r']],
  ])('detaches and erases it: %s', (_name, chunks) => {
    const r = feed(matcher(), chunks);
    expect(r).toMatchObject({ detach: true, by: 'line' });
    expect(r.out.endsWith(`///detach${DELS}`) || r.out.endsWith(DELS)).toBe(true);
    expect(r.out).not.toContain('\r\x7f'); // the Enter itself is not sent
    expect(r.at).toBe(chunks.length - 1);
  });

  it.each([
    ['pasted with its newline in one read', ['///detach\r']],
    ['bracketed-pasted, then Enter', ['\x1b[200~///detach\x1b[201~', '\r']],
    ['part typed, part pasted', ['///de', '\x1b[200~tach\x1b[201~', '\r']],
    ['after text typed before it on the line', ['x///detach', '\r']],
    ['after a cursor move on the line', ['///detach', '\x1b[D', '\x1b[C', '\r']],
    ['with something else', ['///detach now', '\r']],
    ['in the middle of a pasted block', ['a\r///detach\rb']],
  ])('passes through: %s', (_name, chunks) => {
    const r = feed(matcher(), chunks);
    expect(r.detach).toBe(false);
    expect(r.out).toBe(chunks.join(''));
  });

  it('is off with line null', () => {
    expect(feed(matcher(null), ['///detach', '\r']).detach).toBe(false);
  });

  it('focus reports and terminal replies do not spoil the line', () => {
    const r = feed(matcher(), ['///det', '\x1b[I', '\x1b[?1;2c', 'ach', '\r']);
    expect(r.detach).toBe(true);
  });
});

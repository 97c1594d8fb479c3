import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/lib/sha256.js';

const node = (s: string): string => createHash('sha256').update(s).digest('hex');

describe('sha256Hex', () => {
  it('matches node:crypto on the standard vectors and at every block boundary', () => {
    expect(sha256Hex('')).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    for (let n = 0; n < 300; n++) expect(sha256Hex('x'.repeat(n))).toBe(node('x'.repeat(n)));
  });

  it('matches node:crypto on paths with any characters (UTF-8, pairs, lone surrogates)', () => {
    const parts = ['/', 'home', 'é', '日本', '😀', '\ud800', ' ', '-', 'project_1', '\u0000'];
    let seed = 7;
    const rnd = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let k = 0; k < 3000; k++) {
      let s = '';
      for (let i = Math.floor(rnd() * 40); i > 0; i--) s += parts[Math.floor(rnd() * parts.length)];
      expect(sha256Hex(s)).toBe(node(s));
    }
    const long = 'long/'.repeat(20_000);
    expect(sha256Hex(long)).toBe(node(long));
  });
});

import { describe, expect, it } from 'vitest';
import { newId } from '../../src/db/ids.js';
import { randomByte, randomUuid, ulidPrng } from '../../src/lib/random.js';

describe('random ids without node:crypto', () => {
  it('UUIDs are version 4, RFC 4122 variant, and do not repeat', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const u = randomUuid();
      expect(u).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      seen.add(u);
    }
    expect(seen.size).toBe(2000);
  });

  it('bytes cover the whole range, evenly enough; the ulid PRNG stays in [0, 1)', () => {
    const counts = new Array<number>(256).fill(0);
    for (let i = 0; i < 256 * 200; i++) counts[randomByte()]!++;
    expect(Math.min(...counts)).toBeGreaterThan(100); // expected 200 each
    expect(Math.max(...counts)).toBeLessThan(320);
    for (let i = 0; i < 1000; i++) {
      const x = ulidPrng();
      expect(x >= 0 && x < 1).toBe(true);
    }
  });

  it('klaude ids are ULIDs that sort in creation order and do not repeat', () => {
    const ids = Array.from({ length: 1000 }, () => newId());
    for (const id of ids) expect(id).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(1000);
  });
});

describe('newId', () => {
  it('encodes the current millisecond as a ULID does (the ulid package decodes it)', async () => {
    const { decodeTime } = await import('ulid');
    const before = Date.now();
    const id = newId();
    const after = Date.now();
    expect(decodeTime(id)).toBeGreaterThanOrEqual(before);
    expect(decodeTime(id)).toBeLessThanOrEqual(after);
  });
});

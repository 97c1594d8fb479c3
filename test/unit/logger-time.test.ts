import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/lib/logger.js';

describe('isoTime', () => {
  it('writes what Date.prototype.toISOString writes', () => {
    const edges = [
      0,
      1,
      999,
      86_399_999,
      86_400_000,
      951_782_400_000, // 2000-02-29
      951_868_799_999,
      4_107_542_400_000, // 2100-03-01
      Date.UTC(1999, 11, 31, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29, 12, 0, 0, 7),
      Date.UTC(9999, 11, 31, 23, 59, 59, 999),
      Date.now(),
      -1, // 1969-12-31T23:59:59.999Z
      Date.parse('0001-01-01T00:00:00.000Z'),
    ];
    for (const ms of edges) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    let ms = 0;
    for (let i = 0; i < 20_000; i++) {
      ms = (ms * 1_103_515_245 + 12_345 + i * 7_919_000_003) % 253_402_300_800_000;
      expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    }
  });
});

import { randomByte } from '../lib/random.js';

/**
 * A new klaude id: a ULID (48-bit milliseconds, then 80 random bits, in Crockford base 32),
 * monotonic within this process: ids made in the same millisecond increment the random part, so
 * they still sort in creation order and `ORDER BY created_at, id` is stable. Made here rather than
 * with the ulid package, whose node build imports node:crypto when it loads (see lib/random.ts).
 */
const ENCODING = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const RANDOM_LEN = 16;
const TIME_LEN = 10;

let lastTime = -1;
let lastRandom: number[] = [];

export function newId(): string {
  const now = Date.now();
  if (now <= lastTime) increment(lastRandom);
  else {
    lastTime = now;
    // 256 is a multiple of 32: the low five bits of a random byte are uniform.
    lastRandom = Array.from({ length: RANDOM_LEN }, () => randomByte() & 31);
  }
  let time = '';
  for (let t = lastTime, i = 0; i < TIME_LEN; i++, t = Math.floor(t / 32)) time = ENCODING[t % 32]! + time;
  return time + lastRandom.map((d) => ENCODING[d]!).join('');
}

function increment(digits: number[]): void {
  for (let i = digits.length - 1; i >= 0; i--) {
    if (digits[i]! < 31) {
      digits[i]!++;
      return;
    }
    digits[i] = 0;
  }
  throw new Error('more ids in one millisecond than a ULID can tell apart');
}

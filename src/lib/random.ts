/**
 * Random bytes for ids (ULIDs, Claude session UUIDs) from the OS, without loading node:crypto:
 * importing it, or touching `globalThis.crypto` as the ulid package does when it loads, costs a
 * command or the dashboard's first frame about 6 ms to load node's crypto modules, for a few
 * bytes. Bytes are read from /dev/urandom (the source node:crypto uses too) a block at a time;
 * where it cannot be read, node:crypto provides them.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';

const BLOCK = 256;
let pool = Buffer.alloc(0);
let at = 0;

function refill(): void {
  const next = Buffer.allocUnsafe(BLOCK);
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      let got = 0;
      while (got < BLOCK) {
        const n = readSync(fd, next, got, BLOCK - got, null);
        if (n <= 0) throw new Error('short read from /dev/urandom');
        got += n;
      }
    } finally {
      closeSync(fd);
    }
  } catch {
    (createRequire(import.meta.url)('node:crypto') as typeof import('node:crypto')).randomFillSync(next);
  }
  pool = next;
  at = 0;
}

export function randomByte(): number {
  if (at >= pool.length) refill();
  return pool[at++]!;
}

/** A PRNG for the ulid package: uniform in [0, 1) from one random byte (ULIDs take 5 bits per draw). */
export const ulidPrng = (): number => randomByte() / 256;

/** A random (version 4) UUID, as node:crypto's randomUUID makes. */
export function randomUuid(): string {
  const b = new Uint8Array(16);
  for (let i = 0; i < 16; i++) b[i] = randomByte();
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const hex = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** Small synchronous looks at a log file, for the follower's start (follow.ts). */
import { closeSync, openSync, readSync, statSync } from 'node:fs';

/** The file's size now, or undefined when it cannot be read. */
export function sizeNow(file: string): number | undefined {
  try {
    return statSync(file).size;
  } catch {
    return undefined;
  }
}

/** The byte before `at` is a newline (or `at` is the start): `at` is where a line starts. */
export function endsLine(file: string, at: number): boolean {
  if (at === 0) return true;
  let fd: number | undefined;
  try {
    fd = openSync(file, 'r');
    const b = Buffer.alloc(1);
    return readSync(fd, b, 0, 1, at - 1) === 1 && b[0] === 0x0a;
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

import { chmodSync, existsSync, mkdirSync } from 'node:fs';

/** Create `dir` (and parents) 0700 if missing. */
export function ensurePrivateDir(dir: string): string {
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // mkdir honours umask; make the mode exact.
    chmodSync(dir, 0o700);
  }
  return dir;
}

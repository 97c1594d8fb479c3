import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFileLogger } from '../../src/lib/logger.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'klaude-logger-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('file logger rotation', () => {
  it('rotates every time the file passes the size, not only once per process', () => {
    const file = path.join(dir, 'logs', 'klaude.log');
    const log = createFileLogger(file, 'test', {}, { rotateBytes: 1000 });
    const rotatedFirstLines: string[] = [];
    for (let i = 0; i < 60; i++) {
      log.info(`line ${i}`, { pad: 'x'.repeat(40) });
      expect(statSync(file).size).toBeLessThanOrEqual(1000);
      const first = existsSync(`${file}.1`) ? readFileSync(`${file}.1`, 'utf8').split('\n')[0]! : '';
      if (first && rotatedFirstLines.at(-1) !== first) rotatedFirstLines.push(first);
    }
    // ~100 bytes a line, 60 lines, 1000 bytes a file: rotated several times within one logger.
    expect(rotatedFirstLines.length).toBeGreaterThanOrEqual(4);
    expect(readFileSync(file, 'utf8')).toContain('line 59');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('counts what other writers added: a second logger on the same file rotates it too', () => {
    const file = path.join(dir, 'klaude.log');
    const a = createFileLogger(file, 'a', {}, { rotateBytes: 2000 });
    const b = createFileLogger(file, 'b', {}, { rotateBytes: 2000 });
    for (let i = 0; i < 50; i++) {
      (i % 2 ? a : b).info(`line ${i}`, { pad: 'y'.repeat(40) });
      expect(statSync(file).size).toBeLessThanOrEqual(2000);
    }
    expect(existsSync(`${file}.1`)).toBe(true);
  });
});

// What a CLI writes just before it exits reaches klaude, even when the PTY is not read for a while
// after the exit (node-pty gives up on an unread PTY 200 ms after the exit and closes it).
import { describe, expect, it } from 'vitest';
import { spawnInPty, type PtyExitInfo } from '../../src/ptyd/pty-process.js';

function runPaused(script: string): Promise<{ out: string; exit: PtyExitInfo }> {
  const child = spawnInPty('/bin/sh', ['-c', script], {
    cols: 80,
    rows: 24,
    cwd: '/',
    env: { PATH: process.env.PATH },
  });
  // Not read until node-pty's own clean-up: as if the event loop were busy, or flow control held it.
  child.pause();
  const chunks: Buffer[] = [];
  child.onData((d) => chunks.push(d));
  return new Promise((resolve) => {
    child.onExit((exit) => resolve({ out: Buffer.concat(chunks).toString('utf8'), exit }));
  });
}

describe('the last output before the exit', () => {
  it('is delivered before the exit when nobody read the PTY in time', async () => {
    const { out, exit } = await runPaused('printf "last words 日本\\n"; exit 4');
    expect(out).toContain('last words 日本');
    expect(exit.exitCode).toBe(4);
  });

  it('is delivered whole when it is many lines', async () => {
    const { out } = await runPaused('i=0; while [ $i -lt 800 ]; do printf "line %04d\\n" $i; i=$((i+1)); done');
    expect(out).toContain('line 0000');
    expect(out).toContain('line 0799');
  });
});

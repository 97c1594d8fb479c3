// The PTY driver on a tiny scripted child: screen, keys, alternate buffer, cursor visibility, resize, exit.
import { afterEach, describe, expect, it } from 'vitest';
import { spawnPty, type PtySession } from '../support/pty-driver.js';

let term: PtySession | undefined;
afterEach(async () => {
  await term?.dispose();
  term = undefined;
});

// Enters the alternate screen with the cursor hidden, echoes each key as hex, reports resizes,
// and on `q` restores the normal screen and cursor, prints `bye` and exits 3.
const CHILD = `
process.stdout.write('\\x1b[?25l\\x1b[?1049hALT READY\\r\\n');
process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  const hex = d.toString('hex');
  process.stdout.write('key:' + hex + '\\r\\n');
  if (hex === '71') {
    process.stdout.write('\\x1b[?1049l\\x1b[?25h' + 'bye\\r\\n');
    setTimeout(() => process.exit(3), 50);
  }
});
process.stdout.on('resize', () => process.stdout.write('size:' + process.stdout.columns + 'x' + process.stdout.rows + '\\r\\n'));
`;

describe('harness: PTY driver', () => {
  it('reads the screen, sends keys, tracks buffer and cursor, resizes, and reports the exit', async () => {
    term = spawnPty(process.execPath, ['-e', CHILD], {
      cols: 80,
      rows: 24,
      env: { ...process.env, TERM: 'xterm-256color' },
    });
    await term.waitForText('ALT READY', { timeoutMs: 20_000 });
    expect(term.bufferType()).toBe('alternate');
    expect(term.cursorVisible()).toBe(false);
    expect(term.lines()).toHaveLength(24);
    expect(term.lines()[0]).toBe('ALT READY');

    term.press('up');
    await term.waitForText('key:1b5b41');
    term.press('ctrl-]');
    await term.waitForText('key:1d');
    term.press('enter');
    await term.waitForText('key:0d');
    term.type('é');
    await term.waitForText('key:c3a9');

    term.resize(60, 15);
    await term.waitForText('size:60x15');
    expect(term.lines()).toHaveLength(15);
    expect([term.cols, term.rows]).toEqual([60, 15]);

    await expect(term.waitForText('never shown', { timeoutMs: 200 })).rejects.toThrow(
      /timed out after 200 ms[\s\S]*ALT READY/,
    );

    term.type('q');
    const exit = await term.exited;
    expect(exit.exitCode).toBe(3);
    expect(term.bufferType()).toBe('normal');
    expect(term.cursorVisible()).toBe(true);
    expect(term.text()).toContain('bye');
    expect(term.text()).not.toContain('ALT READY');
    expect(term.rawOutput()).toContain('\x1b[?1049h');
    term.resize(80, 24); // no EBADF after exit
    await expect(term.waitForText('never shown')).rejects.toThrow(/child exited/);
  });
});

/**
 * Put the person's terminal back in a usable state after a child that owned it died
 * (a SIGKILLed claude leaves raw mode on and the cursor hidden) or when klaude exits.
 *
 * Terminal modes: setRawMode(false) only undoes raw mode that *this* process set (libuv
 * skips it when its handle never left normal mode), so the termios a killed child left
 * behind stays until node itself restores the modes it saw at start-up, when klaude
 * exits (node saves stdio's termios at start and puts them back at exit). Between two
 * claude launches that is harmless: each claude sets the modes it needs.
 * test/e2e/supervisor-signals.test.ts checks the shell gets icanon and echo back.
 */
import { writeSync } from 'node:fs';
import { LEAVE_ALT, RESET_SEQUENCE } from './escapes.js';

export function restoreTerminal(opts: { leaveAltScreen?: boolean } = {}): void {
  const stdin = process.stdin;
  try {
    if (stdin.isTTY && typeof stdin.setRawMode === 'function') stdin.setRawMode(false);
  } catch {
    /* stdin already closed */
  }
  if (!process.stdout.isTTY) return;
  const seq = opts.leaveAltScreen ? RESET_SEQUENCE + LEAVE_ALT : RESET_SEQUENCE;
  try {
    // Synchronous: this also runs from exit paths where async writes would be lost.
    writeSync(1, seq);
  } catch {
    /* terminal gone */
  }
}

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

// Show cursor and switch off modes a TUI may have left on: bracketed paste, focus
// events, mouse tracking (all encodings), kitty keyboard; reset colours.
export const RESET_SEQUENCE = '\x1b[?25h\x1b[?2004l\x1b[?1004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[<u\x1b[0m';
// Only sent when we know the alternate screen was in use: in the normal buffer,
// `CSI ?1049 l` also restores a saved cursor position, which would jump the cursor.
const LEAVE_ALT_SCREEN = '\x1b[?1049l';

export function restoreTerminal(opts: { leaveAltScreen?: boolean } = {}): void {
  const stdin = process.stdin;
  try {
    if (stdin.isTTY && typeof stdin.setRawMode === 'function') stdin.setRawMode(false);
  } catch {
    /* stdin already closed */
  }
  if (!process.stdout.isTTY) return;
  const seq = opts.leaveAltScreen ? RESET_SEQUENCE + LEAVE_ALT_SCREEN : RESET_SEQUENCE;
  try {
    // Synchronous: this also runs from exit paths where async writes would be lost.
    writeSync(1, seq);
  } catch {
    /* terminal gone */
  }
}

/**
 * Claude's own way back. An interactive claude whose conversation is on disk ends every graceful
 * exit (/exit, Ctrl-C twice, SIGTERM) with three dim lines below its last frame (seen with 2.1.197):
 *
 *     (the row the cursor was on)
 *     Resume this session with:
 *     claude --resume <uuid>
 *
 * A way back that bypasses klaude (no hooks, no session of ours). Where klaude takes the terminal
 * back (a checkout, the dashboard again, klaude's own exit) it erases them and says its own.
 */
import type { ForegroundExit } from './foreground.js';

/** Rows claude's resume hint takes at this width (its command line may wrap). */
export function claudeHintRows(ev: Pick<ForegroundExit, 'spec'>, columns: number): number {
  const cmd = `claude --resume ${ev.spec.claudeSessionId}`;
  return 2 + Math.max(1, Math.ceil(cmd.length / Math.max(1, columns)));
}

/**
 * Whether claude printed its hint: it does on a graceful exit of a conversation that has a transcript
 * (`saved`), to a terminal; SIGKILL leaves no time for it, and other CLIs say their own thing.
 */
export function claudePrintedHint(ev: Pick<ForegroundExit, 'spec' | 'signal'>, saved: boolean): boolean {
  const claude = !ev.spec.runtime || ev.spec.runtime === 'claude';
  return claude && saved && ev.signal !== 'SIGKILL' && process.stdout.isTTY === true;
}

/** The bytes that take the hint off the screen: up to its first row, then erase to the end. */
export function eraseClaudeHint(ev: Pick<ForegroundExit, 'spec'>, columns = process.stdout.columns ?? 80): string {
  return `\r\x1b[${claudeHintRows(ev, columns)}A\x1b[J`;
}

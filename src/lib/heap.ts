/**
 * Long-lived klaude processes (the dashboard, the foreground supervisor) keep V8's young
 * generation at its starting size. V8 doubles it (up to 16 MiB a half) while a process allocates
 * briskly, e.g. while a preview parses a session's output, and rarely gives it back: that growth
 * was a third of a dashboard's resident memory. The growth factor can be changed at run time
 * (the size limit cannot); short commands keep V8's default, since a few more collections
 * matter to them more than a few MiB they hold for a moment. The PTY server gets the same
 * effect from its command line (pty/launch.ts).
 */
import { setFlagsFromString } from 'node:v8';

let done = false;

export function keepYoungGenerationSmall(): void {
  if (done) return;
  done = true;
  // dist/cli.js saves this bundle's code cache first, if it means to (scripts/launcher.cjs): a
  // cache made after a flag changed would be rejected by the next run, which starts without it.
  (globalThis as { __klaudeSaveCodeCache?: () => void }).__klaudeSaveCodeCache?.();
  setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * V8's settings for klaude's long-lived processes, set at run time (short commands keep V8's own).
 *
 * - Young generation kept at its starting size (the dashboard, the foreground supervisor). V8
 *   doubles it (up to 16 MiB a half) while a process allocates briskly, e.g. while a preview parses a
 *   session's output, and rarely gives it back: that growth was a third of a dashboard's resident
 *   memory. The growth factor can be changed at run time (the size limit cannot); short commands
 *   keep V8's default, since a few more collections matter to them more than a few MiB they hold
 *   for a moment. The PTY server gets the same effect from its command line (pty/launch.ts).
 * - No optimizing compiler (the dashboard): its work comes in small bursts (a frame, a few rows),
 *   and the code each burst runs keeps becoming hot for the first time for minutes, so TurboFan
 *   compiled it function after function on its own thread: while a PTY session streamed into the
 *   preview, that thread took as much CPU as the dashboard's own (bench/ui-pty-stream.mjs: 2.3 %
 *   of a core with it, 1.3 % without; the main thread's share the same either way). Baseline
 *   code (Sparkplug) still runs, and regular expressions and JSON keep their own native code.
 * - The same for WebAssembly (Ink's layout engine, yoga): Liftoff, its baseline compiler, only
 *   (`--liftoff-only`; functions are compiled when first called either way). Tiering hot layout
 *   functions up to TurboFan made the dashboard fault in more of the optimizing compilers' machine
 *   code, part of the node binary, and keep both tiers' code: 2–3 MiB of RSS while a preview
 *   streamed; and a dashboard's few dozen boxes were laid out faster without tier-up compiles
 *   (3,000 layouts of 64 boxes: 24–27 ms of CPU against 59–68 ms). A module is compiled with the
 *   flags of its time: the built dashboard starts with these flags (the launcher sets them before it
 *   compiles the bundle: `BUNDLE_FLAGS` in scripts/build.mjs), and the calls below, once its first
 *   frame is out, mark when its code cache is saved.
 */
import { setFlagsFromString } from 'node:v8';

let small = false;
let baseline = false;

/**
 * dist/cli.js saves this bundle's code cache first, if it means to (scripts/launcher.cjs): a cache
 * made after a flag changed would be rejected by the next run, which starts without it.
 */
function beforeFlagChange(): void {
  (globalThis as { __klaudeSaveCodeCache?: () => void }).__klaudeSaveCodeCache?.();
}

export function keepYoungGenerationSmall(): void {
  if (small) return;
  small = true;
  beforeFlagChange();
  setFlagsFromString('--semi-space-growth-factor=1');
}

/** Compile no further than baseline code from now on, JavaScript and WebAssembly (see above: for the dashboard). */
export function baselineCodeOnly(): void {
  if (baseline) return;
  baseline = true;
  beforeFlagChange();
  setFlagsFromString('--max-opt=1');
  setFlagsFromString('--liftoff-only');
}

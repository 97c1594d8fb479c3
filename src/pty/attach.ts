/**
 * `klaude talk`'s terminal side: put the person's terminal through to a PTY session and take it
 * back. Raw mode; keys through the detach matcher to the host; output straight to the terminal
 * (with backpressure); SIGWINCH → resize. Every way out — detach key, `///detach`, the CLI exiting,
 * the host going away, SIGTERM/SIGHUP, a crash — ends in `finish`, which restores the terminal.
 * Ctrl-C is a key like any other: in raw mode it goes to the CLI, never to klaude.
 */
import { writeSync } from 'node:fs';
import { ALT_SCREEN_OFF, ALT_SCREEN_ON, moveTo, RESET_INPUT_MODES } from '../lib/escapes.js';
import { restoreTerminal } from '../lib/terminal.js';
import { connectPty, type PtyConnection } from './host-client.js';
import { DetachMatcher, type DetachKey } from './detach.js';
import type { AttachMode, ExitInfo, Welcome } from '../ptyd/framing.js';

export type AttachEnd =
  | { reason: 'detached'; by: 'key' | 'line' | 'suspend' | 'view-key' }
  | { reason: 'exited'; exit: ExitInfo }
  | { reason: 'lost' }
  | { reason: 'signal'; signal: NodeJS.Signals };

export interface AttachOptions {
  socketPath: string;
  mode: AttachMode;
  detachKey: DetachKey | null;
  /** Called once the host accepted us (before the terminal is taken). */
  onWelcome?(w: Welcome): void;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
}

/** Does this output leave the terminal in the alternate screen? (last switch in the chunk wins) */
export function altScreenAfter(chunk: string, before: boolean): boolean {
  let last = -1;
  let on = before;
  for (const m of chunk.matchAll(ALT_SCREEN_ON)) if (m.index! > last) [last, on] = [m.index!, true];
  for (const m of chunk.matchAll(ALT_SCREEN_OFF)) if (m.index! > last) [last, on] = [m.index!, false];
  return on;
}

export async function attachTerminal(o: AttachOptions): Promise<AttachEnd> {
  const stdin = o.stdin ?? process.stdin;
  const stdout = o.stdout ?? process.stdout;
  const size = { cols: stdout.columns || 80, rows: stdout.rows || 24 };
  let conn: PtyConnection | null = null;
  let alt = false;
  let taken = false;
  let settle: (e: AttachEnd) => void = () => undefined;
  const ended = new Promise<AttachEnd>((r) => (settle = r));
  let done = false;

  const write = (data: Buffer): void => {
    alt = altScreenAfter(data.toString('latin1'), alt);
    if (!stdout.write(data) && conn) {
      conn.pause();
      stdout.once('drain', () => conn?.resume());
    }
  };

  const matcher = new DetachMatcher({ key: o.detachKey, suspendDetaches: o.mode === 'control' });
  const onKeys = (data: Buffer | string): void => {
    // A stdin that had an encoding set (Ink sets utf8; the dashboard's talk key reuses its stdin).
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (o.mode === 'view') {
      const r = matcher.push(chunk);
      if (r.detach || chunk.includes(0x03) || chunk.includes(0x71 /* q */))
        finish({ reason: 'detached', by: 'view-key' });
      return;
    }
    const r = matcher.push(chunk);
    if (r.forward.length) conn?.input(r.forward);
    if (r.detach) finish({ reason: 'detached', by: r.by ?? 'key' });
  };
  const onResize = (): void => {
    if (o.mode === 'control' && stdout.columns && stdout.rows)
      conn?.resize({ cols: stdout.columns, rows: stdout.rows });
  };
  const onSignal = (signal: NodeJS.Signals) => () => finish({ reason: 'signal', signal });
  const signals: [NodeJS.Signals, () => void][] = (['SIGTERM', 'SIGHUP', 'SIGINT'] as NodeJS.Signals[]).map((s) => [
    s,
    onSignal(s),
  ]);
  const onCrash = (err: unknown): void => {
    release();
    process.stderr.write(`klaude: internal error: ${(err as Error)?.message ?? String(err)} [E_INTERNAL]\n`);
    process.exit(70);
  };

  const take = (): void => {
    taken = true;
    for (const [s, fn] of signals) process.on(s, fn);
    process.on('uncaughtException', onCrash);
    process.on('unhandledRejection', onCrash);
    if (stdin.isTTY) stdin.setRawMode(true);
    stdin.on('data', onKeys);
    stdin.resume();
    stdout.on('resize', onResize);
  };

  /** Give the terminal back: raw mode off, modes the session set reset, alternate screen left. */
  const release = (): void => {
    if (!taken) return;
    taken = false;
    stdin.off('data', onKeys);
    stdin.pause();
    stdout.off('resize', onResize);
    for (const [s, fn] of signals) process.off(s, fn);
    process.off('uncaughtException', onCrash);
    process.off('unhandledRejection', onCrash);
    restoreTerminal({ leaveAltScreen: alt });
    try {
      // The cursor goes under the session's screen, so the shell prompt comes after it.
      if (stdout.isTTY) writeSync(1, `${RESET_INPUT_MODES}${alt ? '' : `${moveTo(stdout.rows || 24, 1)}\r\n`}`);
    } catch {
      /* terminal gone */
    }
  };

  function finish(e: AttachEnd): void {
    if (done) return;
    done = true;
    if (e.reason === 'detached' || e.reason === 'signal') conn?.detach();
    release();
    settle(e);
  }

  try {
    conn = await connectPty(
      o.socketPath,
      { mode: o.mode, size },
      {
        onWelcome: (w) => {
          o.onWelcome?.(w);
          take();
        },
        onScreen: write,
        onOutput: write,
        onExit: (exit) => finish({ reason: 'exited', exit }),
        onClose: () => finish({ reason: 'lost' }),
      },
    );
  } catch (e) {
    release();
    throw e;
  }
  // The terminal may have been resized between hello and welcome.
  if (o.mode === 'control' && (stdout.columns !== size.cols || stdout.rows !== size.rows)) onResize();
  return ended;
}

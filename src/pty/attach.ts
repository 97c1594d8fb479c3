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
  /** Who attaches (the host names it to anyone refused meanwhile). */
  who?: string;
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
  return new TerminalAttachment(o).run();
}

/** One attachment of the terminal to a session, from connect to `finish`. */
class TerminalAttachment {
  private readonly stdin: NodeJS.ReadStream;
  private readonly stdout: NodeJS.WriteStream;
  private readonly matcher: DetachMatcher;
  private readonly signals: [NodeJS.Signals, () => void][];
  private conn: PtyConnection | null = null;
  /** The session's output left the terminal in the alternate screen. */
  private alt = false;
  /** The terminal is ours (raw mode, listeners) until released. */
  private taken = false;
  private done = false;
  private settle: (e: AttachEnd) => void = () => undefined;
  private readonly ended = new Promise<AttachEnd>((r) => (this.settle = r));

  constructor(private readonly o: AttachOptions) {
    this.stdin = o.stdin ?? process.stdin;
    this.stdout = o.stdout ?? process.stdout;
    this.matcher = new DetachMatcher({ key: o.detachKey, suspendDetaches: o.mode === 'control' });
    this.signals = (['SIGTERM', 'SIGHUP', 'SIGINT'] as NodeJS.Signals[]).map((signal) => [
      signal,
      () => this.finish({ reason: 'signal', signal }),
    ]);
  }

  async run(): Promise<AttachEnd> {
    const { o, stdout } = this;
    const size = { cols: stdout.columns || 80, rows: stdout.rows || 24 };
    try {
      this.conn = await connectPty(
        o.socketPath,
        { mode: o.mode, size, ...(o.who ? { who: o.who } : {}) },
        {
          onWelcome: (w) => {
            o.onWelcome?.(w);
            this.take();
          },
          onScreen: this.write,
          onOutput: this.write,
          onExit: (exit) => this.finish({ reason: 'exited', exit }),
          onClose: () => this.finish({ reason: 'lost' }),
        },
      );
    } catch (e) {
      this.release();
      throw e;
    }
    // The terminal may have been resized between hello and welcome.
    if (o.mode === 'control' && (stdout.columns !== size.cols || stdout.rows !== size.rows)) this.onResize();
    return this.ended;
  }

  private readonly write = (data: Buffer): void => {
    // Output the host sent before it saw our detach still arrives; the terminal is not ours any
    // more (the dashboard draws on it again at once).
    if (this.done) return;
    this.alt = altScreenAfter(data.toString('latin1'), this.alt);
    if (!this.stdout.write(data) && this.conn) {
      this.conn.pause();
      this.stdout.once('drain', () => this.conn?.resume());
    }
  };

  private readonly onKeys = (data: Buffer | string): void => {
    // A stdin that had an encoding set (Ink sets utf8; the dashboard's talk key reuses its stdin).
    const chunk = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    if (this.o.mode === 'view') {
      const r = this.matcher.push(chunk);
      if (r.detach || chunk.includes(0x03) || chunk.includes(0x71 /* q */))
        this.finish({ reason: 'detached', by: 'view-key' });
      return;
    }
    const r = this.matcher.push(chunk);
    if (r.forward.length) this.conn?.input(r.forward);
    if (r.detach) this.finish({ reason: 'detached', by: r.by ?? 'key' });
  };

  private readonly onResize = (): void => {
    const { stdout } = this;
    if (this.o.mode === 'control' && stdout.columns && stdout.rows)
      this.conn?.resize({ cols: stdout.columns, rows: stdout.rows });
  };

  private readonly onCrash = (err: unknown): void => {
    this.release();
    process.stderr.write(`klaude: internal error: ${(err as Error)?.message ?? String(err)} [E_INTERNAL]\n`);
    process.exit(70);
  };

  /** Take the terminal: raw mode, keys, resizes, and the signals and crashes that must give it back. */
  private take(): void {
    this.taken = true;
    for (const [s, fn] of this.signals) process.on(s, fn);
    process.on('uncaughtException', this.onCrash);
    process.on('unhandledRejection', this.onCrash);
    if (this.stdin.isTTY) this.stdin.setRawMode(true);
    this.stdin.on('data', this.onKeys);
    this.stdin.resume();
    this.stdout.on('resize', this.onResize);
  }

  /** Give the terminal back: raw mode off, modes the session set reset, alternate screen left. */
  private release(): void {
    if (!this.taken) return;
    const { stdin, stdout, alt } = this;
    this.taken = false;
    stdin.off('data', this.onKeys);
    stdin.pause();
    stdout.off('resize', this.onResize);
    for (const [s, fn] of this.signals) process.off(s, fn);
    process.off('uncaughtException', this.onCrash);
    process.off('unhandledRejection', this.onCrash);
    restoreTerminal({ leaveAltScreen: alt });
    try {
      // The cursor goes under the session's screen, so the shell prompt comes after it.
      if (stdout.isTTY) writeSync(1, `${RESET_INPUT_MODES}${alt ? '' : `${moveTo(stdout.rows || 24, 1)}\r\n`}`);
    } catch {
      /* terminal gone */
    }
  }

  private finish(e: AttachEnd): void {
    if (this.done) return;
    this.done = true;
    if (e.reason === 'detached' || e.reason === 'signal') this.conn?.detach();
    this.release();
    this.settle(e);
  }
}

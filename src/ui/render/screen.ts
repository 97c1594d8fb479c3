/**
 * The dashboard's terminal modes, in one place: the alternate screen, the cursor, and who reads
 * stdin. Handing the terminal to claude and taking it back go through `leave()` / `enter()`;
 * `emergencyRestore()` is for exit paths that can't wait (crash, signals).
 *
 * Releasing stdin is more than removing listeners: Node's TTY stream keeps reading the
 * terminal into its buffer while nobody listens, stealing keys typed into the child. So the
 * handle's read is stopped (and restarted on `enter()`).
 */
import { writeSync } from 'node:fs';
import {
  CLEAR_SCREEN,
  ENTER_ALT,
  HIDE_CURSOR,
  LEAVE_ALT,
  POP_TITLE,
  PUSH_TITLE,
  RESET_SEQUENCE,
  SHOW_CURSOR,
  titleSequence,
} from '../../lib/escapes.js';
/** Leaving: clear our title, then pop the saved one (terminals without the stack keep the empty one). */
const RESTORE_TITLE = `${titleSequence('')}${POP_TITLE}`;

interface TtyHandle {
  reading?: boolean;
  readStart?: () => number;
  readStop?: () => number;
}

type Input = NodeJS.ReadStream & { _handle?: TtyHandle };

/** Raw mode off, stop reading the terminal (the next process owns it now). */
export function releaseStdin(stdin: Input): void {
  try {
    if (stdin.isTTY && typeof stdin.setRawMode === 'function') stdin.setRawMode(false);
  } catch {
    /* closed */
  }
  stdin.pause();
  const h = stdin._handle;
  if (h && h.reading && typeof h.readStop === 'function') {
    h.reading = false;
    h.readStop();
  }
}

/**
 * Undo `releaseStdin`: read the terminal again (Ink sets raw mode when its input hook mounts).
 * Also for another reader in this process (the talk key's PTY attach): the stream's own
 * bookkeeping still has a read pending, so it would never restart the handle by itself.
 */
export function reclaimStdin(stdin: Input): void {
  const h = stdin._handle;
  if (h && h.reading === false && typeof h.readStart === 'function') {
    h.reading = true;
    h.readStart();
  }
}

export class TerminalScreen {
  private alt = false;
  private released = false;
  /** The dashboard's title (null: never set one, leave the terminal's alone). */
  private title: string | null = null;
  /** The terminal's own title is saved on its stack (we set ours since enter()). */
  private titlePushed = false;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly input: NodeJS.ReadStream,
  ) {}

  get inAltScreen(): boolean {
    return this.alt;
  }

  /**
   * The terminal title while the dashboard shows (e.g. "klaude (2 waiting)"): written now when the
   * dashboard is up, else on the next enter(); the terminal's own title comes back on leave().
   */
  setTitle(title: string): void {
    if (title === this.title) return;
    this.title = title;
    if (this.alt) this.out.write(this.titleOn());
  }

  private titleOn(): string {
    if (this.title === null) return '';
    const push = this.titlePushed ? '' : PUSH_TITLE;
    this.titlePushed = true;
    return push + titleSequence(this.title);
  }

  private titleOff(): string {
    if (!this.titlePushed) return '';
    this.titlePushed = false;
    return RESTORE_TITLE;
  }

  /** Alternate screen, cursor hidden, screen cleared, stdin read again. */
  enter(): void {
    this.out.write(ENTER_ALT + HIDE_CURSOR + CLEAR_SCREEN + this.titleOn());
    this.alt = true;
    if (this.released) {
      reclaimStdin(this.input as Input);
      this.released = false;
    }
  }

  /** Back to the normal screen with the cursor shown; stdin released for the next owner. */
  leave(): void {
    const title = this.titleOff();
    if (this.alt) this.out.write(title + SHOW_CURSOR + LEAVE_ALT);
    else if (title) this.out.write(title);
    this.alt = false;
    releaseStdin(this.input as Input);
    this.released = true;
  }

  clear(): void {
    if (this.alt) this.out.write(CLEAR_SCREEN);
  }

  /** Synchronous best effort for exit paths: raw mode off, modes reset, cursor shown, normal screen. */
  emergencyRestore(): void {
    try {
      if (this.input.isTTY && typeof this.input.setRawMode === 'function') this.input.setRawMode(false);
    } catch {
      /* closed */
    }
    const seq = this.titleOff() + RESET_SEQUENCE + (this.alt ? LEAVE_ALT : '');
    try {
      // Synchronous on the real terminal: this runs on exit paths where async writes are lost.
      const fd = (this.out as { fd?: unknown }).fd;
      if (typeof fd === 'number') writeSync(fd, seq);
      else this.out.write(seq);
    } catch {
      /* terminal gone */
    }
    this.alt = false;
  }
}

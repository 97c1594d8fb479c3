/**
 * Finding the person's "detach" in the keystrokes `klaude talk` passes through to the session.
 * Pure: bytes in, bytes to forward plus a verdict out. Two ways to detach:
 *
 * - the detach key (config `talk.detachKey`, default Ctrl-] = 0x1d), pressed on its own. The same
 *   key in the kitty keyboard protocol (`CSI 93;5u`) or xterm's modifyOtherKeys (`CSI 27;5;93~`),
 *   which a CLI may switch on, counts too. The byte inside an escape sequence, a terminal's
 *   reply (OSC/DCS strings) or a bracketed paste does not.
 * - the typed line `///detach` followed by Enter. Everything is passed through as typed (the person
 *   sees the line in the CLI's input), and at the Enter the line is erased with backspaces instead.
 *   "Typed" means: no part of the line came from a paste, and the Enter came as its own key press
 *   (first byte of its read) — so pasting a text that contains `///detach\n` never detaches.
 *
 * Bytes are forwarded at once; only a CSI sequence that starts inside a read is held back until its
 * final byte (so the kitty form of the key never reaches the CLI half-sent). A lone ESC at the end
 * of a read goes through immediately (Escape must not lag).
 */
import { DETACH_KEYS, type DetachKeyName } from '../config/schema.js';

export const DETACH_LINE = '///detach';

export interface DetachKey {
  /** The byte the key sends in the plain (legacy) encoding. */
  byte: number;
  /** The key's codepoint in CSI-u / modifyOtherKeys encodings (with the Ctrl modifier). */
  codepoint: number;
  /** For messages: "Ctrl-]". */
  label: string;
}

/** `ctrl-]` → {byte 0x1d, codepoint 93, label 'Ctrl-]'}; `none` → null. */
export function parseDetachKey(name: DetachKeyName | string): DetachKey | null {
  if (name === 'none') return null;
  if (!(DETACH_KEYS as readonly string[]).includes(name)) throw new Error(`unknown detach key ${name}`);
  const ch = name.slice('ctrl-'.length);
  const upper = ch.toUpperCase();
  const code = upper.charCodeAt(0);
  // Ctrl turns @ A-Z [ \ ] ^ _ (0x40-0x5f) into 0x00-0x1f.
  return { byte: code & 0x1f, codepoint: ch.charCodeAt(0), label: `Ctrl-${/[a-z]/.test(ch) ? upper : ch}` };
}

const SUSPEND_KEY: DetachKey = { byte: 0x1a, codepoint: 0x7a, label: 'Ctrl-Z' };

export interface DetachMatcherOptions {
  key: DetachKey | null;
  /** The typed line that detaches; null switches it off. Default DETACH_LINE. */
  line?: string | null;
  /**
   * Ctrl-Z detaches too (by 'suspend'). Inside a PTY host a CLI cannot really suspend itself (its
   * process group is orphaned, so the kernel drops SIGTSTP): claude would announce "suspended",
   * leave raw mode and wait for a SIGCONT that never comes. Going back to the shell is what the
   * person meant, and `klaude talk` is their `fg`.
   */
  suspendDetaches?: boolean;
}

export interface MatchResult {
  /** Bytes for the session (everything before the detach; backspaces erasing a typed `///detach`). */
  forward: Buffer;
  detach: boolean;
  /** What detached, for messages. */
  by?: 'key' | 'line' | 'suspend';
}

type State = 'ground' | 'esc' | 'csi' | 'ss3' | 'str' | 'str-esc' | 'paste';
/** What one step did: how many bytes it took (0: read this one again), or what detached. */
type Step = number | NonNullable<MatchResult['by']>;

const ESC = 0x1b;
const PASTE_END = Buffer.from('\x1b[201~');
const MAX_SEQ = 64;
const MAX_STR = 4096;
const MAX_LINE = 256;
/** CSI finals that are keys (arrows, home/end, F-keys, kitty keys): the input line changed in ways we don't follow. */
const KEY_FINALS = new Set('ABCDEFHPQRSZu~'.split('').map((c) => c.charCodeAt(0)));

export class DetachMatcher {
  private state: State = 'ground';
  /** The current CSI sequence (from ESC), held back when `hold`. */
  private seq: number[] = [];
  private hold = false;
  private strLen = 0;
  private pasteMatched = 0;
  /** Text typed since the last Enter; null when we can't tell (cursor keys, paste, Alt-keys…). */
  private lineSoFar: string | null = '';
  private readonly key: DetachKey | null;
  private readonly target: string | null;
  private readonly suspend: DetachKey | null;

  constructor(opts: DetachMatcherOptions) {
    this.key = opts.key;
    this.target = opts.line === undefined ? DETACH_LINE : opts.line;
    this.suspend = opts.suspendDetaches ? SUSPEND_KEY : null;
  }

  push(chunk: Buffer): MatchResult {
    const out: number[] = [];
    let i = 0;
    while (i < chunk.length) {
      const step = this.step(chunk, i, out);
      if (typeof step === 'string') return { forward: Buffer.from(out), detach: true, by: step };
      i += step;
    }
    // A read that ends in a lone ESC was the Escape key (terminals send a sequence in one write).
    if (this.state === 'esc') {
      this.state = 'ground';
      this.lineSoFar = null;
    }
    return { forward: Buffer.from(out), detach: false };
  }

  /** One byte (or two) through the current state: how many bytes it took, or what detached. */
  private step(chunk: Buffer, i: number, out: number[]): Step {
    const b = chunk[i]!;
    switch (this.state) {
      case 'ground':
        return this.ground(chunk, i, out);
      case 'esc':
        this.afterEsc(b, out);
        return 1;
      case 'csi':
        return this.inCsi(b, out);
      case 'ss3':
        out.push(b);
        this.lineSoFar = null;
        this.state = 'ground';
        return 1;
      case 'str':
      case 'str-esc':
        this.inString(b, out);
        return 1;
      case 'paste':
        this.inPaste(b, out);
        return 1;
    }
  }

  /** Outside any sequence: the detach key, Ctrl-Z, an escape starting, Enter ending a typed line. */
  private ground(chunk: Buffer, i: number, out: number[]): Step {
    const b = chunk[i]!;
    if (this.key && b === this.key.byte) return 'key';
    if (this.suspend && b === this.suspend.byte) return 'suspend';
    if (b === ESC) {
      if (i + 1 < chunk.length && chunk[i + 1] === 0x5b) {
        // A CSI starting inside this read: hold it until its final byte.
        this.seq = [ESC, 0x5b];
        this.hold = true;
        this.state = 'csi';
        return 2;
      }
      out.push(b);
      this.state = 'esc';
      return 1;
    }
    if (b === 0x0d) {
      if (this.target !== null && this.lineSoFar === this.target && i === 0) {
        for (let k = 0; k < this.target.length; k++) out.push(0x7f);
        this.lineSoFar = '';
        return 'line';
      }
      this.lineSoFar = '';
    } else this.trackLine(b);
    out.push(b);
    return 1;
  }

  /** The byte after an ESC (passed through): which kind of sequence this is. */
  private afterEsc(b: number, out: number[]): void {
    out.push(b);
    if (b === 0x5b) {
      this.seq = [];
      this.hold = false;
      this.state = 'csi';
    } else if (b === 0x5d || b === 0x50 || b === 0x58 || b === 0x5e || b === 0x5f) {
      this.strLen = 0;
      this.state = 'str';
    } else if (b === 0x4f) this.state = 'ss3';
    else if (b === ESC) this.state = 'esc';
    else {
      this.lineSoFar = null; // Alt+key
      this.state = 'ground';
    }
  }

  /** Inside a CSI sequence: collect it; at its final byte, see whether it is the key or a paste. */
  private inCsi(b: number, out: number[]): Step {
    if (b === ESC) {
      // A broken sequence: give up on it and start over (the ESC is read again, in ground).
      this.flushSeq(out);
      this.state = 'ground';
      return 0;
    }
    this.seq.push(b);
    if (!this.hold) out.push(b);
    if (b >= 0x40 && b <= 0x7e) {
      this.state = 'ground';
      const verdict = this.endCsi(b);
      if (verdict === 'detach') return 'key';
      if (verdict === 'suspend') return 'suspend';
      if (this.hold) this.flushSeq(out);
      if (verdict === 'paste') {
        this.state = 'paste';
        this.pasteMatched = 0;
      }
    } else if (this.seq.length > MAX_SEQ) {
      this.flushSeq(out);
      this.state = 'ground';
    }
    return 1;
  }

  /** Inside an OSC/DCS/… string (passed through) until BEL or ST. */
  private inString(b: number, out: number[]): void {
    out.push(b);
    if (this.state === 'str-esc') this.state = b === 0x5c ? 'ground' : 'str';
    else if (b === 0x07) this.state = 'ground';
    else if (b === ESC) this.state = 'str-esc';
    else if (++this.strLen > MAX_STR) this.state = 'ground';
  }

  /** Inside a bracketed paste (passed through) until its end sequence. */
  private inPaste(b: number, out: number[]): void {
    out.push(b);
    if (b === PASTE_END[this.pasteMatched]) {
      if (++this.pasteMatched === PASTE_END.length) this.state = 'ground';
    } else this.pasteMatched = b === ESC ? 1 : 0;
  }

  private flushSeq(out: number[]): void {
    if (this.hold) out.push(...this.seq);
    this.seq = [];
    this.hold = false;
  }

  private trackLine(b: number): void {
    if (this.lineSoFar === null) return;
    if (b === 0x7f || b === 0x08) this.lineSoFar = this.lineSoFar.slice(0, -1);
    else if (b === 0x15) this.lineSoFar = '';
    else if (b >= 0x20 && b < 0x7f) this.lineSoFar += String.fromCharCode(b);
    else if (b >= 0xc0) this.lineSoFar += '\ufffd';
    else if (b >= 0x80)
      return; // UTF-8 continuation byte
    else this.lineSoFar = null; // another control key
    if (this.lineSoFar !== null && this.lineSoFar.length > MAX_LINE) this.lineSoFar = null;
  }

  /** A CSI sequence ended with `final`: is it the detach key, a paste start, or a key that moved the cursor? */
  private endCsi(final: number): 'detach' | 'suspend' | 'paste' | null {
    // seq holds ESC [ … when held, or just the bytes after ESC [ when not.
    const body = Buffer.from(this.hold ? this.seq.slice(2) : this.seq).toString('latin1');
    const params = body.slice(0, -1);
    if (final === 0x7e && params === '200') {
      this.lineSoFar = null; // pasted text is not typed text
      return 'paste';
    }
    if (this.hold && this.key && isKeyAsCsi(params, final, this.key.codepoint)) return 'detach';
    if (this.hold && this.suspend && isKeyAsCsi(params, final, this.suspend.codepoint)) return 'suspend';
    if (KEY_FINALS.has(final)) this.lineSoFar = null;
    return null;
  }
}

/** `CSI cp ; mods u` (kitty) or `CSI 27 ; mods ; cp ~` (modifyOtherKeys) with Ctrl (caps/num lock ignored), on press. */
function isKeyAsCsi(params: string, final: number, codepoint: number): boolean {
  const parts = params.split(';');
  let cp: string | undefined;
  let mods: string | undefined;
  if (final === 0x75 && parts.length >= 2) [cp, mods] = parts;
  else if (final === 0x7e && parts.length === 3 && parts[0] === '27') [, mods, cp] = parts;
  else return false;
  const [m, event] = (mods ?? '').split(':');
  const bits = Number(m) - 1;
  if (!Number.isInteger(bits) || (bits & ~(64 | 128)) !== 4) return false;
  if (event !== undefined && event !== '1') return false;
  return Number((cp ?? '').split(':')[0]) === codepoint;
}

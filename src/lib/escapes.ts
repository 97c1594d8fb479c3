/**
 * Every terminal escape sequence klaude writes or strips, in one place: the dashboard's screen
 * modes and title, the reset after a child that owned the terminal, the PTY re-attach, and the
 * patterns that take escapes out of agent text. Pure strings and regexes.
 */

export const ESC = '\x1b';
export const CSI = '\x1b[';
export const BEL = '\x07';

export const ENTER_ALT = '\x1b[?1049h';
export const LEAVE_ALT = '\x1b[?1049l';
export const HIDE_CURSOR = '\x1b[?25l';
export const SHOW_CURSOR = '\x1b[?25h';
export const CLEAR_SCREEN = '\x1b[2J\x1b[H';
export const RESET_PEN = '\x1b[0m';
/** OSC 52: put `text` on the terminal's clipboard (tmux and most terminals honour it). */
export const osc52 = (text: string): string => `\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`;
/** xterm's title stack: save the terminal's title / put it back (ignored where unsupported). */
export const PUSH_TITLE = '\x1b[22;0t';
export const POP_TITLE = '\x1b[23;0t';

/**
 * Show the cursor and switch off modes a TUI may have left on: bracketed paste, focus events,
 * mouse tracking (all encodings), kitty keyboard; reset colours. (Not the alternate screen: in
 * the normal buffer `CSI ?1049 l` also restores a saved cursor position, which would jump it.)
 */
export const RESET_SEQUENCE =
  '\x1b[?25h\x1b[?2004l\x1b[?1004l\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[<u\x1b[0m';
/** Modes RESET_SEQUENCE leaves alone that a CLI run through a PTY may set: cursor keys, keypad, insert, autowrap, scroll region. */
export const RESET_INPUT_MODES = '\x1b[?1l\x1b>\x1b[4l\x1b[?7h\x1b[r';

/** Switches to the alternate screen (1049, and the older 1047 / 47) and back. */
export const ALT_SCREEN_ON = /\x1b\[\?(?:1049|1047|47)h/g;
export const ALT_SCREEN_OFF = /\x1b\[\?(?:1049|1047|47)l/g;

/** A CSI, OSC (BEL- or ST-terminated) or two-byte ESC sequence. */
const SEQUENCE = String.raw`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`;
/** C0 and C1 control characters; the second set keeps \n. */
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;
const CONTROLS_BUT_LF = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g;

/** Every escape sequence in a string (global; for `replace`). */
export const ESCAPE_SEQUENCES = new RegExp(SEQUENCE, 'g');
/** SGR (colours, bold…) alone: the one sequence a cell-by-cell copy of a row keeps. */
export const isSgr = (seq: string): boolean => /^\x1b\[[0-9;:]*m$/.test(seq);
/** At a given position (sticky; set lastIndex): an SGR, any other sequence, or one control character. */
export const ESCAPE_OR_CONTROL_AT = new RegExp(String.raw`\x1b\[[0-9;:]*m|${SEQUENCE}|[\x00-\x1f\x7f]`, 'y');

export const stripEscapes = (s: string): string => s.replace(ESCAPE_SEQUENCES, '');
/** Control characters replaced (by nothing, or e.g. a space); `keepNewlines` for multi-line text. */
export function stripControls(s: string, opts: { by?: string; keepNewlines?: boolean } = {}): string {
  return s.replace(opts.keepNewlines ? CONTROLS_BUT_LF : CONTROLS, opts.by ?? '');
}

/** OSC 0: the window title. */
export const titleSequence = (title: string): string => `\x1b]0;${stripControls(title)}\x07`;
/** OSC 9 (iTerm2, WezTerm, kitty, Windows Terminal, …): a desktop notification with this text. */
export const osc9 = (text: string): string => `\x1b]9;${stripControls(text, { by: ' ' })}\x07`;
/** Cursor to (row, col), both from 1. */
export const moveTo = (row: number, col: number): string => `${CSI}${row};${col}H`;

/*
 * Untrusted text (an agent's words, a tool's output, a file name, a commit message) on the
 * person's terminal. Stripped rather than shown as `^[`: agent and tool text is read, not
 * audited, and colour codes in a test run's output would turn into noise; the dashboard strips
 * the same way. Removed: every CSI, OSC (OSC 52 writes the clipboard, OSC 0 the title), DCS, APC,
 * PM, SOS and two-byte ESC sequence, their 8-bit C1 forms (0x9b CSI, 0x9d OSC, …), and every
 * other C0/C1 control and DEL. Kept: \n and \t; a CR becomes a newline (CRLF one newline), so no
 * text can be printed over. A string sequence (OSC…) left open swallows at most the rest of its
 * line, so an unterminated one cannot hide what follows. `klaude diff` shows a patch's controls
 * instead (visibleControls): there the bytes are the point.
 */

/** Any character the sanitiser acts on; text without one is safe as it is. */
const UNSAFE = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/;
const UNSAFE_G = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Where the sanitiser is: in text; after ESC; in a CSI's parameters and intermediates; after ESC
 * and an intermediate byte (e.g. `ESC ( B`); in an OSC, DCS, APC, PM or SOS payload; after ESC
 * inside such a payload (`ESC \` ends it).
 */
type St = 'text' | 'esc' | 'csi' | 'escInter' | 'str' | 'strEsc';

/** 8-bit C1 introducers: CSI, and those that open a string (DCS, SOS, OSC, PM, APC). */
const C1_CSI = 0x9b;
const C1_STRING = new Set([0x90, 0x98, 0x9d, 0x9e, 0x9f]);
const C1_ST = 0x9c;

/**
 * Makes untrusted text safe to print, piece by piece: a sequence split between two pieces (text
 * streamed in deltas) is removed whole, as if the pieces had come as one string.
 */
export class TextSanitizer {
  private st: St = 'text';
  /** A CR was the last character: a newline, unless an LF follows (CRLF). */
  private cr = false;

  push(s: string): string {
    if (this.st === 'text' && !this.cr && !UNSAFE.test(s)) return s;
    let out = '';
    let i = 0;
    while (i < s.length) {
      if (this.st === 'text' && !this.cr) {
        // Copy the run of plain text up to the next character that needs a look.
        UNSAFE_G.lastIndex = i;
        const m = UNSAFE_G.exec(s);
        const next = m ? m.index : s.length;
        out += s.slice(i, next);
        i = next;
        if (i >= s.length) break;
      }
      const [emit, consumed] = this.step(s.charCodeAt(i));
      out += emit;
      if (consumed) i++;
    }
    return out;
  }

  /** What a piece left pending: the newline of a final CR ('' otherwise; an open sequence is dropped). */
  end(): string {
    const out = this.cr ? '\n' : '';
    this.cr = false;
    this.st = 'text';
    return out;
  }

  /** One character: what to print, and whether it was used up (false: look at it again in the new state). */
  private step(c: number): [string, boolean] {
    if (this.cr) {
      this.cr = false;
      return c === 0x0a ? ['\n', true] : ['\n', false];
    }
    switch (this.st) {
      case 'text':
        return this.text(c);
      case 'esc':
        if (c === 0x5b)
          this.st = 'csi'; // [
        else if (c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f)
          this.st = 'str'; // ] P X ^ _
        else if (c >= 0x20 && c <= 0x2f) this.st = 'escInter';
        else if (c >= 0x30 && c <= 0x7e) this.st = 'text';
        else return this.abort();
        return ['', true];
      case 'csi':
      case 'escInter': {
        const lo = this.st === 'csi' ? 0x3f : 0x2f; // parameters (CSI only) and intermediates
        if (c >= 0x20 && c <= lo) return ['', true];
        if (c >= lo + 1 && c <= 0x7e) {
          this.st = 'text';
          return ['', true];
        }
        return this.abort();
      }
      case 'str':
        if (c === 0x0a || c === 0x0d) return this.abort(); // never past the end of a line
        if (c === 0x07 || c === C1_ST) this.st = 'text';
        else if (c === 0x1b) this.st = 'strEsc';
        return ['', true];
      case 'strEsc':
        if (c === 0x5c) {
          this.st = 'text'; // ST
          return ['', true];
        }
        this.st = 'esc'; // a new sequence begins
        return ['', false];
    }
  }

  /** A character in plain text that UNSAFE matched (or one handed back by an aborted sequence). */
  private text(c: number): [string, boolean] {
    if (c === 0x0a || c === 0x09) return [String.fromCharCode(c), true];
    if (c === 0x0d) this.cr = true;
    else if (c === 0x1b) this.st = 'esc';
    else if (c === C1_CSI) this.st = 'csi';
    else if (C1_STRING.has(c)) this.st = 'str';
    else if (c >= 0x20 && c !== 0x7f && (c < 0x80 || c > 0x9f)) return [String.fromCharCode(c), true];
    return ['', true];
  }

  /** A malformed or cut sequence ends here; the character is looked at again as text. */
  private abort(): [string, boolean] {
    this.st = 'text';
    return ['', false];
  }
}

/**
 * Whether no string of a JSON text (one JSON.parse accepts, given as the text and as its UTF-8
 * bytes) holds a character the sanitiser acts on: then none needs safeText. Looked for without a
 * regex over the decoded strings (a 32 MiB log line: ~15 ms, not 90). Such a character comes from
 * a raw DEL, a raw C1 (UTF-8 C2 80–9F; found in the bytes, one search) or an escape: \b, \f, \r or
 * \u00XX for XX a C0, DEL or C1 (raw C0 characters are not valid JSON). Escapes are found hopping
 * from backslash to backslash in the text, each escape skipped whole (so an escaped backslash
 * before a `b` is no match); String#indexOf is a builtin, a fraction of Buffer#indexOf's call.
 */
export function jsonNeedsNoSanitising(json: string, utf8: Buffer): boolean {
  if (json.includes('\x7f')) return false;
  for (let i = utf8.indexOf(0xc2); i !== -1; i = utf8.indexOf(0xc2, i + 1)) {
    const next = utf8[i + 1] ?? 0;
    if (next >= 0x80 && next <= 0x9f) return false;
  }
  for (let i = json.indexOf('\\'); i !== -1; i = json.indexOf('\\', i + 2)) {
    const c = json.charCodeAt(i + 1);
    if (c === 0x62 || c === 0x66 || c === 0x72) return false; // \b \f \r
    if (c === 0x75 && json.charCodeAt(i + 2) === 0x30 && json.charCodeAt(i + 3) === 0x30) {
      // \u00XX: 0x and 1x are C0 (\u0009 and \u000a too: JSON.stringify writes \t, \n), 7f DEL, 8x 9x C1
      const hi = json.charCodeAt(i + 4);
      if (hi === 0x30 || hi === 0x31 || hi === 0x38 || hi === 0x39) return false;
      if (hi === 0x37 && (json.charCodeAt(i + 5) | 0x20) === 0x66) return false;
    }
  }
  return true;
}

/** Whether safeText would change `s` (a character it acts on). */
export function hasUnsafe(s: string): boolean {
  return UNSAFE.test(s);
}

/** Untrusted text made safe to print (see TextSanitizer); the same string when nothing needs it. */
export function safeText(s: string): string {
  if (!UNSAFE.test(s)) return s;
  const t = new TextSanitizer();
  return t.push(s) + t.end();
}

/**
 * Controls shown instead of acted on: `^[` for ESC, `^G`, `^?` for DEL, `<9B>` for a C1 byte, as
 * `less` shows them; \n, \t and the CR of a CRLF are kept.
 */
export function visibleControls(s: string): string {
  if (!UNSAFE.test(s)) return s;
  return s.replace(/\r(?!\n)|[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]/g, (ch) => {
    const c = ch.charCodeAt(0);
    if (c < 0x20) return `^${String.fromCharCode(c + 0x40)}`;
    if (c === 0x7f) return '^?';
    return `<${c.toString(16).toUpperCase()}>`;
  });
}

/**
 * JSON for a terminal or a pipe: JSON.stringify escapes C0 controls but leaves DEL and C1
 * characters raw, and some terminals act on a C1 CSI or OSC even in UTF-8; those are written as
 * \u escapes too (the same value to any JSON reader).
 */
export function safeJson(value: unknown, space?: number): string {
  return jsonControlsEscaped(JSON.stringify(value, null, space) ?? 'null');
}

/** A JSON text's raw DEL and C1 characters (only strings can hold them) as \u escapes; other controls dropped. */
export function jsonControlsEscaped(json: string): string {
  if (!UNSAFE.test(json)) return json;
  return json.replace(UNSAFE_G, (ch) => {
    const c = ch.charCodeAt(0);
    return c >= 0x7f ? `\\u${c.toString(16).padStart(4, '0')}` : '';
  });
}

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

/**
 * Printing a log to a terminal stream as it is written, text included while it streams:
 * `text_delta` pieces are written as they come (no newline), and the whole `text` that closes
 * them writes only what the pieces did not already show, then the newline. A reader that starts
 * late, or reads a finished log, gets the same text once. Thinking pieces are shown dim.
 *
 * A terminal cannot take back what it printed: when the closing text does not continue the
 * pieces (it should), the whole text is printed on a new line.
 *
 * Pieces are made safe as a stream (lib/escapes.ts TextSanitizer): an escape sequence split
 * between two pieces is removed whole, and the pieces shown stay a prefix of the safe whole text.
 */
import type { AgentEvent } from '../core/events.js';
import { TextSanitizer } from '../lib/escapes.js';
import { safeEvent, type EventFormatter } from './format.js';

export interface StreamPrinter {
  /** The bytes to write for this event (may be '' and may lack a final newline while text streams). */
  print(event: AgentEvent): string;
  /**
   * The same bytes, handed to `write`: in one piece, except that a long text is passed on apart
   * from what surrounds it (joining a 32 MiB text to its newline copies it once more).
   */
  printTo(event: AgentEvent, write: (s: string) => void): void;
  /** What closes an open partial line at the end of the output ('' or '\n'). */
  finish(): string;
}

export function createStreamPrinter(fmt: EventFormatter, opts: { showThinking?: boolean } = {}): StreamPrinter {
  let open: 'text' | 'thinking' | null = null;
  let shown = ''; // text shown by the pieces of the current message (leading newlines dropped)
  const clean = new PieceSanitizer();

  const close = (): string => {
    clean.reset();
    if (!open) return '';
    open = null;
    shown = '';
    return '\n';
  };

  /**
   * A streamed piece of `kind`: what ends the other kind's open line and starts this kind's line
   * (its stamp, then `lead`) when it is not open yet, and the piece, without the leading newlines
   * of a new line ('' when nothing is left to show).
   */
  const streamed = (kind: 'text' | 'thinking', ts: number, text: string, lead: string): [string, string] => {
    let out = open !== null && open !== kind ? close() : '';
    let piece = text;
    if (open !== kind) {
      piece = piece.replace(/^\n+/, '');
      if (piece === '') return [out, ''];
      open = kind;
      shown = '';
      out += `${fmt.stamp(ts)}${lead}`;
    }
    return [out, piece];
  };

  /** The pieces of an event's output, in order. */
  const pieces = (e: AgentEvent): string[] => {
    if (e.type === 'text_delta') {
      const [out, piece] = streamed('text', e.ts, clean.push('text', e.text ?? ''), '');
      shown += piece;
      return [out + piece];
    }
    if (e.type === 'thinking_delta') {
      if (opts.showThinking === false) return [];
      const [out, piece] = streamed('thinking', e.ts, clean.push('thinking', e.text ?? ''), fmt.paint('dim', '∴ '));
      return [piece === '' ? out : out + fmt.paint('dim', piece)];
    }
    if (e.type === 'text' && open === 'text') {
      const safe = safeEvent(e);
      const whole = fmt.format(safe); // keeps the formatter's [UPDATE] bookkeeping
      const text = (safe.text ?? '').replace(/^\n+/, '').trimEnd();
      const had = shown;
      open = null;
      shown = '';
      clean.reset();
      if (text.startsWith(had)) return [text.slice(had.length), '\n'];
      // Joined mid-message (a tail of the log): the pieces shown are inside the text.
      const at = had.length >= 16 ? text.indexOf(had) : -1;
      if (at > 0) return [text.slice(at + had.length), '\n'];
      // The pieces ended in whitespace the whole text trims away.
      if (text === had.trimEnd()) return [had.endsWith('\n') ? '' : '\n'];
      return whole === null ? ['\n'] : ['\n', whole, '\n'];
    }
    const s = fmt.format(e);
    if (s === null) return [];
    return [close(), s, '\n'];
  };

  return {
    print: (e) => pieces(e).join(''),
    printTo(e, write) {
      const ps = pieces(e);
      let n = 0;
      for (const p of ps) n += p.length;
      if (n === 0) return;
      if (n < LONG) write(ps.length === 1 ? ps[0]! : ps.join(''));
      else for (const p of ps) if (p !== '') write(p);
    },
    finish: close,
  };
}

/** The sanitiser of the pieces of the one kind streaming now (an escape sequence may span two pieces). */
class PieceSanitizer {
  private kind: 'text' | 'thinking' | null = null;
  private s = new TextSanitizer();

  push(kind: 'text' | 'thinking', text: string): string {
    if (this.kind !== kind) this.reset(kind);
    return this.s.push(text);
  }

  reset(kind: 'text' | 'thinking' | null = null): void {
    this.kind = kind;
    this.s = new TextSanitizer();
  }
}

/** Output at least this long is written in its pieces (see printTo). */
const LONG = 64 * 1024;
